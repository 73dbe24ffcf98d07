//! The command line as typed (ripgrep's lowargs): clap types only. What
//! the flags mean is decided in `settings` and the command handlers.

// The doc comments here are clap's help text, where `<root>` and
// `<slug>` are placeholders, not HTML.
#![allow(rustdoc::invalid_html_tags)]

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "memlint",
    version = env!("MEMLINT_VERSION"),
    about = "Lint, format and recall agent memory kept as markdown records in a git repository"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The heading `--help` lists the options every command takes under, apart
/// from the command's own.
const GLOBAL: &str = "Global options";

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Workspace root (default: nearest ancestor with .memlint.yml, else the git work tree, else the current directory)
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Configuration file (default: <root>/.memlint.yml)
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// When to use colour
    #[arg(long, global = true, help_heading = GLOBAL, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only what matters (no closing count line when clean)
    #[arg(short, long, global = true, help_heading = GLOBAL)]
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
    /// Write a new decision, request or knowledge record, checked by every rule first
    New(NewArgs),
    /// Mark a record replaced by another of its kind, and point its replaced records at the new one
    Replace(ReplaceArgs),
    /// A record's fields and body, and the records that point at it
    Show(ShowArgs),
    /// Mark records as checked against their sources today: writes `verified` and a pin of each `file:` source
    Verify(VerifyArgs),
    /// Take in memory kept in another tool's format: claude, memory-bank, basic-memory, beads, cursor, kiro
    Import(ImportArgs),
    /// Write the memory block (resident knowledge, active decisions) into AGENTS.md, CLAUDE.md, GEMINI.md or .github/copilot-instructions.md
    Export(ExportArgs),
    /// Serve the memory as Model Context Protocol tools on standard input/output
    Mcp,
    /// Run the language server (LSP) on standard input/output, for editors
    Server,
    /// git's merge driver for memory files (CONTEXT.md by block, records by key); see `memlint init --merge`
    MergeFile(MergeFileArgs),
    /// Print a shell completion script (e.g. `memlint completions bash > ~/.local/share/bash-completion/completions/memlint`)
    Completions {
        /// The shell to complete in
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to standard output (e.g. `memlint man | man -l -`)
    Man,
}

/// `memlint merge-file %O %A %B %P`: git's `merge.<driver>.driver` protocol.
#[derive(Args, Debug)]
pub struct MergeFileArgs {
    /// The common ancestor's version (git's %O)
    pub base: PathBuf,
    /// Ours (git's %A); the result is written here
    pub ours: PathBuf,
    /// Theirs (git's %B)
    pub theirs: PathBuf,
    /// The file's path in the repository (git's %P), which decides how it is merged
    pub path: Option<PathBuf>,
    /// Conflict marker size (git's %L)
    #[arg(short = 'L', long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..))]
    pub marker_size: u8,
    /// Label of our side in conflict markers (git's %X)
    #[arg(long, default_value = "ours")]
    pub ours_label: String,
    /// Label of the ancestor in conflict markers (git's %S)
    #[arg(long, default_value = "base")]
    pub base_label: String,
    /// Label of their side in conflict markers (git's %Y)
    #[arg(long, default_value = "theirs")]
    pub theirs_label: String,
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
    /// Only records of this day or later (YYYY-MM-DD)
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub since: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
}

fn parse_day(s: &str) -> Result<String, String> {
    match crate::model::kind::is_date(s) {
        true => Ok(s.to_string()),
        false => Err(format!("`{s}` is not a date YYYY-MM-DD")),
    }
}

fn parse_kind(s: &str) -> Result<crate::model::kind::Kind, String> {
    crate::model::kind::Kind::parse(s).ok_or_else(|| {
        let names: Vec<&str> = crate::model::kind::Kind::ALL
            .iter()
            .map(|k| k.name())
            .collect();
        format!("unknown kind `{s}` (one of: {})", names.join(", "))
    })
}

/// `memlint context [rotate]`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ContextArgs {
    #[command(subcommand)]
    pub command: Option<ContextCommand>,
    /// Only the header, the newest CONTEXT.md block and the number of records per directory (after a compaction)
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

/// `memlint hook …`: they read the runtime's JSON on standard input.
#[derive(Subcommand, Debug)]
pub enum HookCommand {
    /// SessionStart: refresh the index and print the context (brief after a compaction); exit 0 always
    SessionStart(HookAgentArgs),
    /// PostToolUse on Write|Edit|MultiEdit: lint the written record; errors exit 2 for the agent to fix
    PostWrite,
    /// Stop: rotate CONTEXT.md and refresh the index; exit 0 always
    Stop(HookAgentArgs),
    /// UserPromptSubmit: add the records most relevant to the prompt (each once per session); exit 0 always
    Prompt(HookAgentArgs),
}

#[derive(Args, Debug, Clone, Copy, Default)]
pub struct HookAgentArgs {
    /// The agent runtime whose hook protocol to answer in (default: recognised from the input, else claude)
    #[arg(long, value_enum, value_name = "NAME")]
    pub agent: Option<AgentName>,
}

/// An agent runtime with a hook protocol memlint speaks.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentName {
    /// Claude Code
    Claude,
    /// OpenAI Codex CLI
    Codex,
    /// Gemini CLI
    Gemini,
    /// Cursor
    Cursor,
}

impl AgentName {
    /// The engine's agent.
    pub(crate) fn agent(self) -> crate::engine::agents::Agent {
        use crate::engine::agents::Agent;
        match self {
            AgentName::Claude => Agent::Claude,
            AgentName::Codex => Agent::Codex,
            AgentName::Gemini => Agent::Gemini,
            AgentName::Cursor => Agent::Cursor,
        }
    }
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,
    /// Write a self-contained HTML review page to FILE instead (overview,
    /// decisions over time, a page per record, search); replaces only a
    /// page memlint wrote
    #[arg(long, value_name = "FILE", conflicts_with = "format")]
    pub html: Option<std::path::PathBuf>,
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
    /// With --staged: only the history/* rules, on what the commit removes or rewrites, with the Memlint-GC trailers of the commit message in FILE (git's commit-msg hook)
    #[arg(long, value_name = "FILE", requires = "staged")]
    pub commit_msg: Option<PathBuf>,
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
    /// Register the agent-runtime hooks in FILE (default: each agent's own settings file, .claude/settings.json for Claude Code), merging with what is there
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    pub agent_settings: Option<Option<PathBuf>>,
    /// With --agent-settings: the agent runtime to register the hooks for (repeatable; default claude): claude (.claude/settings.json), codex (.codex/hooks.json), gemini (.gemini/settings.json), cursor (.cursor/hooks.json)
    #[arg(
        long = "agent",
        value_enum,
        value_name = "NAME",
        requires = "agent_settings"
    )]
    pub agents: Vec<AgentName>,
    /// Register memlint's merge driver: .gitattributes lines for CONTEXT.md and records, merge.memlint.driver in .git/config
    #[arg(long)]
    pub merge: bool,
}

/// `memlint staging …`.
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
    /// Write a new staging entry (activity log) under a fresh id
    Add(StagingAddArgs),
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
    /// Take the lock as a ref on this git remote (refs/memlint/consolidation-lock), so that claims on other machines see it
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = StagingFormat::Human)]
    pub format: StagingFormat,
}

#[derive(Args, Debug)]
pub struct StagingReleaseArgs {
    /// The pod id that made the claim
    #[arg(long, value_name = "ID")]
    pub pod: String,
    /// Release the lock held as a ref on this git remote (see `claim --remote`)
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
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

/// The kinds `memlint new` writes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewKind {
    Decision,
    Request,
    Knowledge,
}

impl NewKind {
    /// The kind it names.
    pub(crate) fn kind(self) -> crate::model::kind::Kind {
        use crate::model::kind::Kind;
        match self {
            NewKind::Decision => Kind::Decision,
            NewKind::Request => Kind::Request,
            NewKind::Knowledge => Kind::Knowledge,
        }
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthorFormat {
    Human,
    Json,
}

#[derive(Args, Debug)]
pub struct NewArgs {
    /// The kind of record
    #[arg(value_enum)]
    pub kind: NewKind,
    /// The title (one line, at most 120 characters); the slug is made from its ASCII words
    pub title: String,
    /// The slug (file name), when the title has no ASCII words or another is wanted
    #[arg(long, value_name = "SLUG")]
    pub slug: Option<String>,
    /// A source (repeatable): decision:<slug>, file:<path>, commit:<hex>, https://…, session:<id>, …
    #[arg(long = "source", value_name = "SOURCE")]
    pub sources: Vec<String>,
    /// A tag (repeatable)
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
    /// One line describing a knowledge record (required for knowledge)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// Knowledge: inject the description at every session start (model_invocation: true)
    #[arg(long)]
    pub resident: bool,
    /// The body, from FILE, or from standard input with `-`
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,
    /// The date (YYYY-MM-DD; default: today, UTC)
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,
    /// The slug of a record of the same kind this one replaces
    #[arg(long, value_name = "SLUG")]
    pub replaces: Option<String>,
    /// Write it even when its slug, or its title and body, look like a near-duplicate of an active record, and re-point a --replaces record already replaced by another
    #[arg(long)]
    pub force: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}

#[derive(Args, Debug)]
pub struct ReplaceArgs {
    /// The slug of the record to mark replaced
    pub old: String,
    /// The slug of the record that replaces it (same kind)
    pub new: String,
    /// The kind, when the slug names records of several kinds
    #[arg(long, value_enum)]
    pub kind: Option<NewKind>,
    /// Re-point OLD even when it is already replaced by another record
    #[arg(long)]
    pub force: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A slug, kind:slug (decision:use-gix, cmem:CMEM-…), or a path relative to the root
    pub target: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Records: slugs, kind:slug, or paths relative to the root
    pub targets: Vec<String>,
    /// Every record `sources/drifted` reports (moved ranges and renamed files are rewritten first)
    #[arg(long)]
    pub drifted: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}

#[derive(Args, Debug)]
pub struct StagingAddArgs {
    /// Where the activity log comes from (session:<id>, a tool name, …)
    #[arg(long, value_name = "SOURCE")]
    pub source: String,
    /// The body, from FILE, or from standard input with `-`
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}

/// The formats on the command line.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// Claude Code memory: MEMORY.md and topic files (name, description, type)
    Claude,
    /// Cline / Roo / Kilo memory bank (projectbrief.md, activeContext.md, …)
    MemoryBank,
    /// basic-memory notes (title, type, permalink, tags; observations, wiki-link relations)
    BasicMemory,
    /// beads issues (.beads/issues.jsonl)
    Beads,
    /// Cursor rules (.cursor/rules/*.mdc)
    Cursor,
    /// Kiro steering files (.kiro/steering/*.md)
    Kiro,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The format of the memory to import
    #[arg(value_enum, value_name = "FORMAT")]
    pub source_format: ImportFormat,
    /// Files or directories inside the workspace root
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Show the plan; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Output format of the report
    #[arg(long = "format", value_enum, default_value_t = AuthorFormat::Human)]
    pub output: AuthorFormat,
}

/// What `memlint export` writes.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportTarget {
    /// The memory block of an agent instructions file (AGENTS.md by default)
    AgentsMd,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// What to write
    #[arg(value_enum)]
    pub target: ExportTarget,
    /// The file: AGENTS.md (default), CLAUDE.md, GEMINI.md or .github/copilot-instructions.md
    #[arg(long, value_name = "FILE")]
    pub file: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = AuthorFormat::Human)]
    pub format: AuthorFormat,
}
