//! The command line: clap types hold what was typed; `Settings` holds what it
//! means. Nothing below `run` looks at clap types.

use crate::diagnostic::{self, Diagnostic, Severity};
use crate::render::{self, Summary};
use crate::workspace::{Workspace, WorkspaceError};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "memlint",
    version,
    about = "Lint, format and recall agent memory kept as markdown records in a git repository"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Workspace root (default: nearest ancestor with .memlint.yml, else the git work tree, else the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file (default: <root>/.memlint.yml)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// When to use colour
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only what matters (no closing count line when clean)
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Lint the workspace, or the given files and directories
    Check(CheckArgs),
    /// Create the workspace layout, .memlint.yml and the .gitignore lines
    Init(InitArgs),
    /// Describe a rule, or list every rule
    Rule {
        /// Rule name, e.g. status/dangling-target
        name: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories to lint (references still resolve against the whole workspace)
    pub paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,
    /// Exit 1 on warnings too
    #[arg(long)]
    pub deny_warnings: bool,
}

#[derive(Args, Debug)]
pub struct InitArgs {}

/// Resolved global settings.
pub struct Settings {
    pub color: bool,
    pub quiet: bool,
    pub workspace: Workspace,
}

impl Settings {
    fn resolve(global: &GlobalArgs) -> Result<Settings, WorkspaceError> {
        let color = match global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        let workspace = Workspace::load(global.root.as_deref(), global.config.as_deref())?;
        Ok(Settings {
            color,
            quiet: global.quiet,
            workspace,
        })
    }
}

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let result = match &cli.command {
        Command::Rule { name } => rule(name.as_deref()),
        Command::Init(_) => {
            Settings::resolve_for_init(&cli.global).and_then(|root| crate::init::run(&root))
        }
        Command::Check(args) => Settings::resolve(&cli.global).and_then(|s| check(&s, args)),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("memlint: error: {e}");
            ExitCode::from(2)
        }
    }
}

impl Settings {
    /// `init` works on the given root or the current directory, without
    /// needing a valid configuration.
    fn resolve_for_init(global: &GlobalArgs) -> Result<PathBuf, WorkspaceError> {
        let cwd = std::env::current_dir().map_err(|source| WorkspaceError::Io {
            path: ".".into(),
            source,
        })?;
        Ok(match &global.root {
            Some(r) => cwd.join(r),
            None => cwd,
        })
    }
}

fn write_out(text: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`memlint check | head`) is not an error worth reporting.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn check(s: &Settings, args: &CheckArgs) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    let mut files = ws.files();
    if !args.paths.is_empty() {
        let mut wanted = Vec::new();
        for p in &args.paths {
            let rel = ws.relative(p).ok_or_else(|| {
                WorkspaceError::Usage(format!(
                    "{} is outside the workspace root {}",
                    p.display(),
                    ws.root.display()
                ))
            })?;
            if !ws.root.join(&rel).exists() {
                return Err(WorkspaceError::Usage(format!(
                    "{}: no such file or directory",
                    p.display()
                )));
            }
            wanted.push(rel);
        }
        files.retain(|f| {
            wanted
                .iter()
                .any(|w| w.is_empty() || f == w || f.starts_with(&format!("{w}/")))
        });
    }
    let reports = ws.lint(&files);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut sources: HashMap<String, String> = HashMap::new();
    for r in reports {
        if let Some(src) = r.source {
            sources.insert(r.path.clone(), src);
        }
        diags.extend(r.diagnostics);
    }
    diagnostic::sort(&mut diags);
    let summary = Summary::of(files.len(), &diags);
    let text = match args.format {
        CheckFormat::Human => {
            if s.quiet && diags.is_empty() {
                String::new()
            } else {
                render::human(&diags, &sources, summary, s.color)
            }
        }
        CheckFormat::Json => render::json(&diags, summary),
        CheckFormat::Github => render::github(&diags, summary),
        CheckFormat::Sarif => render::sarif(&diags),
    };
    write_out(&text);
    let failed = summary.errors > 0
        || (args.deny_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn rule(name: Option<&str>) -> Result<ExitCode, WorkspaceError> {
    let mut out = String::new();
    match name {
        None => {
            for r in crate::rules::REGISTRY {
                out.push_str(&format!(
                    "{:<32} {:<8} {:<4} {}\n",
                    r.name,
                    r.default.as_str(),
                    if r.fixable { "fix" } else { "" },
                    r.summary
                ));
            }
        }
        Some(n) => {
            let Some(r) = crate::rules::lookup(n) else {
                let names = crate::rules::names();
                let hint = similar::get_close_matches(n, &names, 1, 0.5)
                    .first()
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default();
                return Err(WorkspaceError::Usage(format!("no rule named `{n}`{hint}")));
            };
            out.push_str(&format!(
                "{}\n  default severity: {}\n  fixable: {}\n\n{}\n",
                r.name,
                r.default.as_str(),
                if r.fixable {
                    "yes (memlint check --fix)"
                } else {
                    "no"
                },
                r.summary
            ));
        }
    }
    write_out(&out);
    Ok(ExitCode::SUCCESS)
}
