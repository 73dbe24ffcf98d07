//! What `memlint context` is asked for, resolved: flags over environment
//! over configuration. A leaf: search asks it how much material to store.

use crate::engine::advice::Words;
use crate::model::config::ContextConfig;
use crate::store::material::keep_for;

/// Blocks `context rotate` keeps by default.
pub(crate) const DEFAULT_KEEP: usize = 5;

/// What `memlint context` was asked for, resolved: flags over environment
/// over configuration.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// At most this many characters.
    pub max_chars: usize,
    /// How many `CONTEXT.md` blocks to show.
    pub blocks: usize,
    /// The header lines (`context.header`).
    pub header: String,
    /// Only the header and the counts per directory.
    pub brief: bool,
    /// Show the resident knowledge.
    pub resident: bool,
    /// The front end's words for the advice a cut context ends with.
    pub words: Words,
}

/// The command-line overrides of `memlint context`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flags {
    /// `--brief`.
    pub brief: bool,
    /// `--no-resident`.
    pub no_resident: bool,
    /// `--max-chars`.
    pub max_chars: Option<usize>,
    /// `--blocks`.
    pub blocks: Option<usize>,
}

/// Whether `MEMORY_INJECT` turns the context off (`0`, `false`, `no`, `off`).
pub(crate) fn inject_disabled(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("MEMORY_INJECT").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// A non-negative integer from the environment; a value that is not one is
/// reported in `warnings` and ignored (a hook must never fail on it).
fn env_number(
    env: &dyn Fn(&str) -> Option<String>,
    name: &str,
    min: usize,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let raw = env(name)?;
    match raw.trim().parse::<usize>() {
        Ok(n) if n >= min => Some(n),
        _ => {
            warnings.push(format!(
                "{name}={raw:?} is not an integer of at least {min}; ignored"
            ));
            None
        }
    }
}

impl Settings {
    /// Flags win over `MEMORY_INJECT_MAX_CHARS` / `MEMORY_INJECT_BLOCKS`, which
    /// win over `context:` in the configuration. Returns the settings and the
    /// warnings about ignored environment values.
    pub(crate) fn resolve(
        config: &ContextConfig,
        flags: &Flags,
        env: &dyn Fn(&str) -> Option<String>,
        words: Words,
    ) -> (Settings, Vec<String>) {
        let mut warnings = Vec::new();
        let env_max = env_number(env, "MEMORY_INJECT_MAX_CHARS", 1, &mut warnings);
        let env_blocks = env_number(env, "MEMORY_INJECT_BLOCKS", 0, &mut warnings);
        let settings = Settings {
            max_chars: flags.max_chars.or(env_max).unwrap_or(config.max_chars),
            blocks: flags.blocks.or(env_blocks).unwrap_or(config.blocks),
            header: config.header.clone(),
            brief: flags.brief,
            resident: !flags.no_resident,
            words,
        };
        (settings, warnings)
    }
}

/// How many blocks `context rotate` keeps: the flag, else `MEMORY_KEEP_N`,
/// else [`DEFAULT_KEEP`]; with the warning about an ignored value.
pub(crate) fn keep_n(
    flag: Option<usize>,
    env: &dyn Fn(&str) -> Option<String>,
) -> (usize, Vec<String>) {
    let mut warnings = Vec::new();
    let n = flag
        .or_else(|| env_number(env, "MEMORY_KEEP_N", 0, &mut warnings))
        .unwrap_or(DEFAULT_KEEP);
    (n, warnings)
}

/// The context size `MEMORY_INJECT_MAX_CHARS` asks for in `env`; `None`
/// when it is unset or not an integer of at least 1.
pub(crate) fn env_max_chars(env: &dyn Fn(&str) -> Option<String>) -> Option<usize> {
    env_number(env, "MEMORY_INJECT_MAX_CHARS", 1, &mut Vec::new())
}

/// How many items of each list the material stored beside the search index
/// keeps (see [`crate::store::material`]): as many as a context of the configured
/// size can show, or of the size the environment asks for
/// ([`crate::model::workspace::Workspace::env_max_chars`]).
pub(crate) fn stored_keep(ws: &crate::model::workspace::Workspace) -> usize {
    keep_for(ws.env_max_chars.unwrap_or(ws.config.context.max_chars))
}
