//! The command line: clap types hold what was typed; `Settings` holds what it
//! means. Nothing below `run` looks at clap types.

pub mod progress;
pub mod render;

use crate::engine::workspace::{Workspace, WorkspaceError};
use crate::model::diagnostic::Severity;
use clap::{Args, Parser, Subcommand, ValueEnum};
use render::Summary;
use std::io::IsTerminal;
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
    /// The consolidation lock: staging backlog, claim and release
    #[command(subcommand)]
    Staging(StagingCommand),
    /// Describe a rule, or list every rule
    Rule {
        /// Rule name, e.g. status/dangling-target
        name: Option<String>,
    },
    /// Save, restore and list compacted session memories
    Compact(CompactArgs),
    /// Rewrite records into canonical form (key order, list layout, quoting, LF)
    Fmt(FmtArgs),
    /// The git history of a record (following renames) or of the workspace, with Memlint-GC trailers
    Log(LogArgs),
    /// Rebuild .memlint/index and the search index now (other commands refresh them on demand)
    Index,
    /// Tidy-up material for the consolidation worker: diagnostics per record, replaced chains, records over max_sources, similar slugs, staging backlog
    Report(ReportArgs),
    /// The session-start context: header, CONTEXT.md blocks, resident knowledge, table of contents
    Context(ContextArgs),
    /// Adapters for agent-runtime hooks (SessionStart, PostToolUse, Stop)
    #[command(subcommand)]
    Hook(HookCommand),
    /// Recall: records ranked by BM25 for a query (Japanese and Chinese too)
    Search(SearchArgs),
    /// A background watcher (Linux) that spares search and context the stat of every record
    #[command(subcommand)]
    Watch(WatchCommand),
}

/// `memlint watch …`: see `crate::io::watch`.
#[derive(Subcommand, Debug)]
pub enum WatchCommand {
    /// Start a watcher in the background for this workspace (nothing happens when one runs)
    Start,
    /// Stop the workspace's watcher
    Stop,
    /// Whether a watcher runs, and whether it vouches for the tree; exit 1 when none runs
    Status,
    /// Watch in the foreground until stopped
    Run,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to look for (words; Japanese and Chinese need no spaces)
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Only records of this kind
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<crate::model::kind::Kind>,
    /// At most this many results
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Include replaced records
    #[arg(long)]
    pub all: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
}

fn parse_kind(s: &str) -> Result<crate::model::kind::Kind, String> {
    crate::model::kind::Kind::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = crate::model::kind::Kind::ALL
            .iter()
            .map(|k| k.name())
            .collect();
        format!("unknown kind `{s}` (one of: {})", names.join(", "))
    })
}

/// `memlint context [rotate]` (SPEC §6).
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ContextArgs {
    #[command(subcommand)]
    pub command: Option<ContextCommand>,
    /// Only the header and the number of records per directory (after a compaction)
    #[arg(long)]
    pub brief: bool,
    /// Leave out the resident knowledge (the consolidation worker uses this)
    #[arg(long)]
    pub no_resident: bool,
    /// At most this many characters (default: context.max_chars, or MEMORY_INJECT_MAX_CHARS)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_chars: Option<u64>,
    /// How many CONTEXT.md blocks to show (default: context.blocks, or MEMORY_INJECT_BLOCKS)
    #[arg(long, value_name = "N")]
    pub blocks: Option<usize>,
}

#[derive(Subcommand, Debug)]
pub enum ContextCommand {
    /// Keep the first N blocks of CONTEXT.md; the older ones stay in git history
    Rotate {
        /// Blocks to keep (default: MEMORY_KEEP_N, else 5)
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        /// Also drop older blocks that are not committed yet (they are lost)
        #[arg(long)]
        force: bool,
    },
}

/// `memlint hook …` (SPEC §6): they read the runtime's JSON on standard input.
#[derive(Subcommand, Debug)]
pub enum HookCommand {
    /// SessionStart: refresh the index and print the context (brief after a compaction); exit 0 always
    SessionStart,
    /// PostToolUse on Write|Edit|MultiEdit: lint the written record; errors exit 2 for the agent to fix
    PostWrite,
    /// Stop: rotate CONTEXT.md and refresh the index; exit 0 always
    Stop,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Human,
    Json,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    /// A record (path or slug) and/or a range (`main..HEAD`, `HEAD~10..`, or one revision)
    #[arg(value_name = "PATH|SLUG] [RANGE")]
    pub words: Vec<String>,
    /// Only commits with Memlint-GC trailers (malformed trailers are reported)
    #[arg(long)]
    pub gc: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub format: LogFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Human,
    Json,
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
    /// Apply the safe fixes, then lint again and report what remains
    #[arg(long)]
    pub fix: bool,
    /// Lint what the next commit will contain: the staged contents from the git index, not the work tree
    #[arg(long, conflicts_with_all = ["base", "fix"])]
    pub staged: bool,
    /// Lint what changed between the merge base of REV and HEAD, plus the history/* rules (pull requests)
    #[arg(long, value_name = "REV", conflicts_with = "fix")]
    pub base: Option<String>,
}

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// Files or directories to format (default: the whole workspace)
    pub paths: Vec<PathBuf>,
    /// Change nothing; list the files that would change and exit 1 if any
    #[arg(long)]
    pub check: bool,
    /// Change nothing; print a unified diff of what would change and exit 1 if any
    #[arg(long)]
    pub diff: bool,
    /// Format standard input as if it were the file PATH and print the result (for editors)
    #[arg(long, value_name = "PATH", conflicts_with_all = ["paths", "check", "diff"])]
    pub stdin_filepath: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// Also write .githooks/pre-commit, set core.hooksPath, and print the agent-runtime hook settings
    #[arg(long)]
    pub hooks: bool,
    /// With --hooks: replace an existing hook or core.hooksPath
    #[arg(long, requires = "hooks")]
    pub force: bool,
    /// Register the agent-runtime hooks in FILE (default .claude/settings.json), merging with what is there
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = crate::engine::init::AGENT_SETTINGS)]
    pub agent_settings: Option<PathBuf>,
}

/// `memlint staging …` (SPEC §9).
#[derive(Subcommand, Debug)]
pub enum StagingCommand {
    /// Staging files, bytes, whether consolidation is due, and the lock holder
    Status {
        /// Output format
        #[arg(long, value_enum, default_value_t = StagingFormat::Human)]
        format: StagingFormat,
    },
    /// Snapshot the staging entries and take the consolidation lock (exit 3 when held)
    Claim(StagingClaimArgs),
    /// Delete the entries consumed by the claim and drop the lock (holder only)
    Release(StagingReleaseArgs),
}

#[derive(Args, Debug)]
pub struct StagingClaimArgs {
    /// The consolidation worker's pod id, recorded in the lock
    #[arg(long, value_name = "ID")]
    pub pod: String,
    /// The worker's process id recorded in the lock (default: the process that runs memlint)
    #[arg(long, value_name = "PID", value_parser = clap::value_parser!(u32).range(1..=i32::MAX as i64))]
    pub pid: Option<u32>,
    /// Replace a lock that cannot be read (a live lock is never replaced)
    #[arg(long)]
    pub force: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = StagingFormat::Human)]
    pub format: StagingFormat,
}

#[derive(Args, Debug)]
pub struct StagingReleaseArgs {
    /// The pod id that made the claim
    #[arg(long, value_name = "ID")]
    pub pod: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = StagingFormat::Human)]
    pub format: StagingFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum StagingFormat {
    Human,
    Json,
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    #[command(subcommand)]
    pub command: CompactCommand,
}

#[derive(Subcommand, Debug)]
pub enum CompactCommand {
    /// Validate a structured session text and store it as memory/sessions/CMEM-YYYYMMDD-HHMMSS.md
    Import(CompactImportArgs),
    /// Print a stored session text as it was imported (secrets masked, control characters as symbols)
    Export {
        /// Session id, e.g. CMEM-20261101-101500
        #[arg(long)]
        id: String,
    },
    /// List stored session memories, newest first
    List {
        /// Output format
        #[arg(long, value_enum, default_value_t = CompactFormat::Human)]
        format: CompactFormat,
    },
    /// Print the empty 14-section session template
    Template,
}

#[derive(Args, Debug)]
pub struct CompactImportArgs {
    /// Read the session text from this file (default: standard input)
    #[arg(long, value_name = "F")]
    pub file: Option<PathBuf>,
    /// A description shown by `compact list`
    #[arg(long, value_name = "D")]
    pub description: Option<String>,
    /// Comma-separated tags
    #[arg(long, value_name = "a,b", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Store the text even when validation finds problems
    #[arg(long)]
    pub force: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = CompactFormat::Human)]
    pub format: CompactFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactFormat {
    Human,
    Json,
}

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
        Command::Init(args) => Settings::resolve_for_init(&cli.global).and_then(|root| {
            // `--hooks` is checked first, so that a refusal creates nothing.
            let hooks = match args.hooks {
                true => Some(crate::engine::init::Hooks::plan(&root, args.force)?),
                false => None,
            };
            let settings = args
                .agent_settings
                .as_deref()
                .map(|file| crate::engine::init::AgentSettings::plan(&root, file))
                .transpose()?;
            let mut code = crate::engine::init::run(&root)?;
            if let Some(hooks) = hooks {
                code = hooks.install()?;
            }
            if let Some(settings) = settings {
                code = settings.write()?;
            }
            Ok(code)
        }),
        Command::Log(args) => Settings::resolve(&cli.global).and_then(|s| log(&s, args)),
        Command::Check(args) => Settings::resolve(&cli.global).and_then(|s| check(&s, args)),
        Command::Staging(cmd) => Settings::resolve(&cli.global).and_then(|s| staging(&s, cmd)),
        Command::Compact(args) => compact(&cli.global, &args.command),
        Command::Fmt(args) => fmt(&cli.global, args),
        Command::Index => Settings::resolve(&cli.global).and_then(|s| index(&s)),
        Command::Report(args) => Settings::resolve(&cli.global).and_then(|s| report(&s, args)),
        Command::Context(args) => Settings::resolve(&cli.global).and_then(|s| context(&s, args)),
        Command::Hook(cmd) => Ok(hook(&cli.global, cmd)),
        Command::Search(args) => Settings::resolve(&cli.global).and_then(|s| search(&s, args)),
        Command::Watch(cmd) => {
            Settings::resolve(&cli.global).and_then(|s| watch(&s, &cli.global, cmd))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Several problems of a configuration: one line each.
            for line in e.to_string().lines() {
                eprintln!("memlint: error: {line}");
            }
            ExitCode::from(2)
        }
    }
}

impl Settings {
    /// `init` works on the given root, else on the root every other command
    /// would find from here (so that they find what it creates): the
    /// nearest directory above with `.memlint.yml`, else the top of the
    /// git work tree, else the current directory. It needs no valid
    /// configuration. Another directory than the current one is named on
    /// standard error, with how to choose the current one instead.
    fn resolve_for_init(global: &GlobalArgs) -> Result<PathBuf, WorkspaceError> {
        let cwd = std::env::current_dir().map_err(|source| WorkspaceError::Io {
            path: ".".into(),
            source,
        })?;
        if let Some(r) = &global.root {
            return Ok(crate::engine::workspace::normalize(&cwd.join(r)));
        }
        let root = crate::engine::workspace::find_root(&cwd);
        if root != cwd {
            let why = if root.join(crate::model::config::FILE_NAME).is_file() {
                format!(
                    "the nearest directory above with {}",
                    crate::model::config::FILE_NAME
                )
            } else {
                "the top of the git work tree".to_string()
            };
            eprintln!(
                "memlint: note: the workspace root is {} ({why}), where every memlint command run here looks; `memlint --root . init` makes {} a workspace of its own instead",
                root.display(),
                cwd.display()
            );
        }
        Ok(root)
    }
}

/// Everything the commands print goes through the sanitizer's edge.
fn write_out(text: &str) {
    crate::syntax::sanitize::write_out(text);
}

fn check(s: &Settings, args: &CheckArgs) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    // The git modes read the index or commits, never the work tree.
    let git_mode = args.staged || args.base.is_some();
    let mut wanted = Vec::new();
    let mut present = Vec::new();
    let mut warned = Vec::new();
    for p in &args.paths {
        let given = ws.given(p)?;
        warned.push(given.skipped.is_some());
        if !git_mode {
            if let Some(why) = &given.skipped {
                eprintln!("memlint: warning: {why}");
            } else if !given.exists {
                return Err(WorkspaceError::Usage(format!(
                    "{}: no such file or directory",
                    p.display()
                )));
            }
        }
        present.push(given.exists);
        wanted.push(given.rel);
    }
    let selected = |f: &str| {
        wanted.is_empty()
            || wanted
                .iter()
                .any(|w| w.is_empty() || f == w || f.starts_with(&format!("{w}/")))
    };
    let git_error = |e: crate::io::git::GitError| WorkspaceError::Usage(e.to_string());
    // In the git modes a path may be gone from the work tree yet be in the
    // version linted; one that matches nothing anywhere is a usage error.
    let matched = |outcome: &crate::engine::check::Outcome| {
        let missing: Vec<String> = args
            .paths
            .iter()
            .zip(&present)
            .filter(|(_, exists)| !**exists)
            .map(|(p, _)| p.display().to_string())
            .collect();
        if outcome.files == 0 && !missing.is_empty() {
            return Err(WorkspaceError::Usage(format!(
                "{}: no such file or directory, in the work tree or in the version checked",
                missing.join(", ")
            )));
        }
        Ok(())
    };
    if args.staged {
        let outcome = crate::engine::version::staged(ws, &selected).map_err(git_error)?;
        matched(&outcome)?;
        return Ok(report_check(s, args, &outcome));
    }
    if let Some(rev) = &args.base {
        let outcome = crate::engine::version::base(ws, rev, &selected).map_err(git_error)?;
        matched(&outcome)?;
        return Ok(report_check(s, args, &outcome));
    }
    let files = crate::store::listing::files(ws);
    let bar = crate::cli::progress::Bar::new("indexing");
    let index_opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let mut write_failed = false;
    if args.fix {
        let fixed = crate::engine::fix::run(ws, &files, &selected, &index_opts);
        for (path, e) in &fixed.failed {
            eprintln!("memlint: error: {path}: {e}");
        }
        write_failed = !fixed.failed.is_empty();
        if !s.quiet {
            for path in &fixed.raced {
                eprintln!(
                    "memlint: note: {path}: changed while memlint was fixing it; left as it is"
                );
            }
            if !fixed.fixed.is_empty() {
                eprintln!("memlint: fixed {} file(s)", fixed.fixed.len());
            }
        }
    }
    let outcome = crate::engine::check::run_with(ws, &files, &selected, &index_opts);
    let mut code = report_check(s, args, &outcome);
    // A fix that could not be written is a failure of the command, not a
    // finding: exit 2, as `fmt` does, whatever the lint found.
    if write_failed {
        code = ExitCode::from(2);
    }
    // "No problems in 0 files." alone would not say why.
    let named = wanted.iter().zip(&args.paths).zip(&warned);
    let nothing_to_check = args.paths.is_empty() && outcome.files == 0;
    let asked: Vec<(String, String)> = match nothing_to_check {
        true => vec![(String::new(), ".".into())],
        false => named
            .filter(|(_, warned)| !**warned)
            .map(|((rel, p), _)| (rel.clone(), p.display().to_string()))
            .collect(),
    };
    for (rel, shown) in asked {
        if let Some(why) = ws.selects_nothing(&rel, &shown, &files) {
            eprintln!("memlint: warning: {why}");
        }
    }
    // The process exits next: freeing every file's report and path one by
    // one would only delay it (tens of milliseconds on 100k records).
    std::mem::forget((outcome, files));
    Ok(walk_outcome(ws, code))
}

/// Reports on standard error what the walks of `ws` left out: an ignore
/// file that was not read (a warning), a directory that could not be read
/// (an error). Returns `code`, or exit 2 after such an error: the answer
/// printed is incomplete.
fn walk_outcome(ws: &Workspace, code: ExitCode) -> ExitCode {
    let mut failed = false;
    for p in ws.take_problems() {
        let level = if p.is_error() { "error" } else { "warning" };
        failed |= p.is_error();
        eprintln!("memlint: {level}: {p}");
    }
    if failed {
        ExitCode::from(2)
    } else {
        code
    }
}

/// Renders a `check` outcome and returns the exit code.
fn report_check(
    s: &Settings,
    args: &CheckArgs,
    outcome: &crate::engine::check::Outcome,
) -> ExitCode {
    let diags = &outcome.diagnostics;
    let sources = &outcome.sources;
    let summary = Summary::of(outcome.files, diags);
    let text = match args.format {
        CheckFormat::Human => {
            if s.quiet && diags.is_empty() {
                String::new()
            } else {
                render::human(diags, sources, summary, s.color, render::width())
            }
        }
        CheckFormat::Json => render::json(diags, summary),
        CheckFormat::Github => render::github(diags, summary),
        CheckFormat::Sarif => render::sarif(diags),
    };
    crate::syntax::sanitize::write_out_colored(&text, s.color && args.format == CheckFormat::Human);
    let failed = summary.errors > 0
        || (args.deny_warnings && diags.iter().any(|d| d.severity == Severity::Warning));
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `memlint log`: malformed trailers are also reported on standard error.
fn log(s: &Settings, args: &LogArgs) -> Result<ExitCode, WorkspaceError> {
    let mut request =
        crate::engine::log::parse_log_args(&args.words).map_err(WorkspaceError::Usage)?;
    request.gc_only = args.gc;
    let log = crate::engine::log::log(&s.workspace, &request)
        .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
    for c in &log.commits {
        for m in &c.malformed {
            eprintln!(
                "memlint: warning: commit {}: malformed `{}:` trailer `{}`: {}",
                &c.id[..7.min(c.id.len())],
                crate::engine::log::TRAILER,
                crate::syntax::sanitize::line(&m.line),
                crate::syntax::sanitize::line(&m.reason)
            );
        }
    }
    write_out(&match args.format {
        LogFormat::Human => crate::engine::log::render_human(&log),
        LogFormat::Json => crate::engine::log::render_json(&log),
    });
    Ok(ExitCode::SUCCESS)
}

fn fmt(global: &GlobalArgs, args: &FmtArgs) -> Result<ExitCode, WorkspaceError> {
    if let Some(path) = &args.stdin_filepath {
        return crate::engine::fmt::stdin(global.root.as_deref(), global.config.as_deref(), path);
    }
    let s = Settings::resolve(global)?;
    let options = crate::engine::fmt::Options {
        paths: args.paths.clone(),
        check: args.check,
        diff: args.diff,
        quiet: s.quiet,
    };
    crate::engine::fmt::run(&s.workspace, &options).map(|code| walk_outcome(&s.workspace, code))
}

fn compact(global: &GlobalArgs, command: &CompactCommand) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::compact as c;
    let result = match command {
        // The template needs no workspace.
        CompactCommand::Template => {
            write_out(&c::template());
            Ok(())
        }
        CompactCommand::Import(args) => {
            let s = Settings::resolve(global)?;
            let (input, text) = read_import_input(args.file.as_deref())?;
            let request = c::ImportRequest {
                text: &text,
                description: args.description.as_deref().unwrap_or(""),
                tags: &args.tags,
                force: args.force,
            };
            let now = crate::model::clock::now_secs();
            let imported = c::import(&s.workspace.root, &s.workspace.config, &request, now);
            match &imported {
                Ok(done) => {
                    eprint!("{}", c::render_problems(&done.problems, &input, &done.path));
                    let forced = done.problems.iter().filter(|p| p.blocks()).count();
                    if forced > 0 {
                        eprintln!("memlint: warning: stored despite {forced} problem(s) (--force)");
                    }
                    write_out(&match args.format {
                        // Quiet: the id alone, for scripts.
                        CompactFormat::Human if s.quiet => format!("{}\n", done.id),
                        CompactFormat::Human => c::render_imported(done),
                        CompactFormat::Json => c::render_imported_json(done),
                    });
                }
                Err(c::CompactError::Refused { problems, .. }) => {
                    eprint!(
                        "{}",
                        c::render_problems(problems, &input, "memory/sessions")
                    );
                }
                Err(_) => {}
            }
            imported.map(|_| ())
        }
        CompactCommand::Export { id } => {
            let s = Settings::resolve(global)?;
            // The stored text is printed as it was imported, but for
            // masked secrets and control characters shown as symbols: it
            // goes to a terminal or into an agent's prompt.
            c::export(&s.workspace.root, id)
                .map(|bytes| write_out(&String::from_utf8_lossy(&bytes)))
        }
        CompactCommand::List { format } => {
            let s = Settings::resolve(global)?;
            c::list(&s.workspace.root).map(|listing| {
                for (path, why) in &listing.skipped {
                    eprintln!(
                        "memlint: warning: {}: skipped: {why}",
                        crate::syntax::sanitize::line(path)
                    );
                }
                match format {
                    CompactFormat::Json => write_out(&c::render_list_json(&listing.sessions)),
                    CompactFormat::Human if s.quiet && listing.sessions.is_empty() => {}
                    CompactFormat::Human => write_out(&c::render_list(&listing.sessions)),
                }
            })
        }
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("memlint: error: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}

/// The text to import and the name problems are reported under: `--file`,
/// or standard input when it is absent or `-`.
fn read_import_input(file: Option<&std::path::Path>) -> Result<(String, Vec<u8>), WorkspaceError> {
    if let Some(f) = file.filter(|f| f.as_os_str() != "-") {
        // A FIFO is read from standard input (`--file -`) instead: named
        // here it would be opened blind, and could wait for ever.
        let text = crate::io::fs::read_regular(f).map_err(|source| {
            let hint = if source.kind() == std::io::ErrorKind::InvalidInput {
                "; pipe it to standard input instead (`--file -`)"
            } else {
                ""
            };
            WorkspaceError::Usage(format!("cannot read {}: {source}{hint}", f.display()))
        })?;
        return Ok((f.display().to_string(), text));
    }
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        eprintln!("memlint: reading the session text from standard input (end with Ctrl-D)");
    }
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut stdin, &mut text).map_err(|source| WorkspaceError::Io {
        path: "<stdin>".into(),
        source,
    })?;
    Ok(("<stdin>".to_string(), text))
}

fn rule(name: Option<&str>) -> Result<ExitCode, WorkspaceError> {
    let mut out = String::new();
    match name {
        None => {
            for r in crate::lint::rules::REGISTRY {
                out.push_str(&format!(
                    "{:<32} {:<8} {:<4} {}\n",
                    r.rule.as_str(),
                    r.rule.default_severity().as_str(),
                    if r.rule.fixable() { "fix" } else { "" },
                    r.rule.summary()
                ));
            }
        }
        Some(n) => {
            let Some(r) = crate::lint::rules::lookup(n) else {
                let names = crate::lint::rules::names();
                let hint = crate::syntax::text::closest(n, &names, 0.5)
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default();
                return Err(WorkspaceError::Usage(format!("no rule named `{n}`{hint}")));
            };
            out.push_str(&format!(
                "{}\n  default severity: {}\n  fixable: {}\n\n{}\n",
                r.rule.as_str(),
                r.rule.default_severity().as_str(),
                if r.rule.fixable() {
                    "yes (memlint check --fix)"
                } else {
                    "no"
                },
                r.rule.summary()
            ));
        }
    }
    write_out(&out);
    Ok(ExitCode::SUCCESS)
}

/// `memlint staging status|claim|release`: lock conflicts exit 3.
fn staging(s: &Settings, cmd: &StagingCommand) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::staging as st;
    fn json<T: serde::Serialize>(value: &T) -> String {
        crate::syntax::sanitize::json(value)
    }
    let root = &s.workspace.root;
    let cfg = &s.workspace.config.staging;
    let now = crate::model::clock::now_secs();
    let outcome = match cmd {
        StagingCommand::Status { format } => st::status(root, cfg).map(|status| match format {
            StagingFormat::Json => {
                if let Some(problem) = status.lock_problem() {
                    eprintln!("memlint: warning: {problem}");
                }
                json(&status)
            }
            StagingFormat::Human => {
                let live = status
                    .lock
                    .as_ref()
                    .map(|lock| st::is_live(lock, &st::host_name(), now, cfg));
                status.human(live)
            }
        }),
        StagingCommand::Claim(args) => {
            let who = st::Claimant::here(&args.pod, args.pid);
            st::claim(root, cfg, &who, now, args.force).map(|claimed| {
                if let Some(reason) = &claimed.replaced_unreadable {
                    eprintln!(
                        "memlint: warning: replaced the unreadable {} ({reason})",
                        st::LOCK_PATH
                    );
                }
                match args.format {
                    StagingFormat::Json => json(&claimed),
                    StagingFormat::Human if s.quiet => String::new(),
                    StagingFormat::Human => claimed.human(),
                }
            })
        }
        StagingCommand::Release(args) => {
            st::release(root, &args.pod).map(|released| match args.format {
                StagingFormat::Json => json(&released),
                StagingFormat::Human if s.quiet => String::new(),
                StagingFormat::Human => released.human(),
            })
        }
    };
    match outcome {
        Ok(text) => {
            write_out(&text);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("memlint: error: {e}");
            Ok(ExitCode::from(if e.is_conflict() { 3 } else { 2 }))
        }
    }
}

/// `memlint index`: a full rebuild of `.memlint/index`, and what it did.
fn index(s: &Settings) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    let started = std::time::Instant::now();
    // Before the files are listed, so that any later change shows.
    let watch = crate::io::watch::stamp(ws);
    let listing = crate::store::listing::new_listing(ws);
    let bar = crate::cli::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: true,
        progress: bar.shown(!s.quiet),
    };
    let (done, search) = crate::engine::search::refresh(ws, &listing, &opts, watch);
    let secs = started.elapsed().as_secs_f64();
    if let Err(e) = done.saved {
        return Err(WorkspaceError::Usage(format!(
            "cannot write {}: {e}",
            crate::store::table::path(&ws.root).display()
        )));
    }
    if !s.quiet {
        write_out(&format!(
            "Indexed {} records in {} files ({} re-parsed, {} tokenized for search) in {secs:.2} s.\n",
            search.records,
            listing.files.len(),
            done.reparsed,
            search.tokenized
        ));
        if done.from_disk {
            write_out(&format!(
                "The files were not in the page cache: read by {} threads.\n",
                crate::io::stat::IO_THREADS
            ));
        }
    }
    Ok(walk_outcome(ws, ExitCode::SUCCESS))
}

/// `memlint search`: ranked records for a query.
fn search(s: &Settings, args: &SearchArgs) -> Result<ExitCode, WorkspaceError> {
    let query = crate::engine::search::Query {
        text: args.query.join(" "),
        kind: args.kind,
        limit: args.limit as usize,
        all: args.all,
    };
    let bar = crate::cli::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let hits = crate::engine::search::search(&s.workspace, &query, &opts);
    match args.format {
        ReportFormat::Human => crate::syntax::sanitize::write_out_colored(
            &crate::engine::search::human(&hits, s.color),
            s.color,
        ),
        ReportFormat::Json => write_out(&crate::engine::search::json(&query.text, &hits)),
    }
    Ok(walk_outcome(&s.workspace, ExitCode::SUCCESS))
}

/// `memlint watch …`.
fn watch(
    s: &Settings,
    global: &GlobalArgs,
    cmd: &WatchCommand,
) -> Result<ExitCode, WorkspaceError> {
    use crate::io::watch as w;
    let root = &s.workspace.root;
    let not_running = || {
        eprintln!("memlint: no watcher runs for {}", root.display());
        Ok(ExitCode::from(1))
    };
    match cmd {
        WatchCommand::Run => {
            let quiet = s.quiet;
            w::run(&s.workspace, |status| {
                if !quiet {
                    write_out(&status.human(root));
                }
            })
            .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
            Ok(ExitCode::SUCCESS)
        }
        WatchCommand::Start => {
            if let Some(status) = w::status(root) {
                if !s.quiet {
                    write_out(&format!("already {}", status.human(root)));
                }
                return Ok(ExitCode::SUCCESS);
            }
            let config = global.config.as_ref().map(|c| {
                std::env::current_dir()
                    .map(|d| d.join(c))
                    .unwrap_or(c.clone())
            });
            let status = w::start(root, config.as_deref())
                .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
            if !s.quiet {
                write_out(&status.human(root));
            }
            Ok(ExitCode::SUCCESS)
        }
        WatchCommand::Stop => match w::stop(root) {
            Some(pid) => {
                if !s.quiet {
                    write_out(&format!(
                        "stopped the watcher of {} (pid {pid})\n",
                        root.display()
                    ));
                }
                Ok(ExitCode::SUCCESS)
            }
            None => not_running(),
        },
        WatchCommand::Status => match w::status(root) {
            Some(status) => {
                write_out(&status.human(root));
                Ok(ExitCode::SUCCESS)
            }
            None => not_running(),
        },
    }
}

/// `memlint context [rotate]` (SPEC §6).
fn context(s: &Settings, args: &ContextArgs) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::context as c;
    let env = |name: &str| std::env::var(name).ok();
    if let Some(ContextCommand::Rotate { keep, force }) = &args.command {
        let (keep, warnings) = c::keep_n(*keep, &env);
        for w in warnings {
            eprintln!("memlint: warning: {w}");
        }
        return match c::rotate(&s.workspace.root, keep, *force) {
            Ok(done @ c::RotateOutcome::Raced) => {
                if !s.quiet {
                    eprint!("memlint: note: {}", done.human());
                }
                Ok(ExitCode::SUCCESS)
            }
            Ok(done) => {
                if !s.quiet {
                    write_out(&done.human());
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => Err(WorkspaceError::Usage(e.to_string())),
        };
    }
    if c::inject_disabled(&env) {
        return Ok(ExitCode::SUCCESS);
    }
    let flags = c::Flags {
        brief: args.brief,
        no_resident: args.no_resident,
        max_chars: args
            .max_chars
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        blocks: args.blocks,
    };
    let (settings, warnings) = c::Settings::resolve(&s.workspace.config.context, &flags, &env);
    for w in warnings {
        eprintln!("memlint: warning: {w}");
    }
    let material = c::gather(&s.workspace, settings.max_chars);
    write_out(&c::render(&material, &settings));
    Ok(walk_outcome(&s.workspace, ExitCode::SUCCESS))
}

/// `memlint hook …`: the hooks resolve their own workspace, since a broken
/// one must not make them fail.
fn hook(global: &GlobalArgs, cmd: &HookCommand) -> ExitCode {
    let place = crate::engine::hook::Place {
        root: global.root.clone(),
        config: global.config.clone(),
    };
    match cmd {
        HookCommand::SessionStart => crate::engine::hook::session_start(&place),
        HookCommand::PostWrite => crate::engine::hook::post_write(&place),
        HookCommand::Stop => crate::engine::hook::stop(&place),
    }
}

/// `memlint report`: the consolidation worker's tidy-up material.
fn report(s: &Settings, args: &ReportArgs) -> Result<ExitCode, WorkspaceError> {
    let bar = crate::cli::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let built = crate::engine::report::build(&s.workspace, &opts)
        .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
    write_out(&match args.format {
        ReportFormat::Human => built.human(),
        ReportFormat::Json => built.json(),
    });
    Ok(walk_outcome(&s.workspace, ExitCode::SUCCESS))
}
