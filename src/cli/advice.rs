//! The command line's words for the engine's [`Advice`] and [`Name`]s:
//! commands and flags a person (or an agent with a shell) types.

use crate::engine::advice::{Advice, Name};
use crate::io::git::Asking;

/// The clause the command line appends to an engine message.
pub(crate) fn words(advice: &Advice) -> String {
    match advice {
        Advice::Force => " (or give --force to write it anyway)".to_string(),
        Advice::Search => " run `memlint search QUERY` to recall the rest".to_string(),
        Advice::VerifyOrReplace => {
            " then run `memlint verify SLUG` if it still holds, or replace it (`memlint new … --replaces SLUG`)".to_string()
        }
        Advice::SearchBrief => " `memlint search` recalls more".to_string(),
        Advice::ListSessions => " (`memlint compact list` shows the stored ones)".to_string(),
        Advice::SessionTemplate => {
            " (`memlint compact template` prints one to fill in)".to_string()
        }
        Advice::Check { path } => format!(" (`memlint check {path}` shows what is wrong)"),
        Advice::ReplaceDecision { slug } => {
            format!(" (`memlint new decision \"…\" --replaces {slug}`)")
        }
        Advice::SupersedeOrForce { old } => format!(
            ", or write this one with --replaces {old} if it supersedes it (or give --force to write it anyway)"
        ),
        Advice::Retry => ", run the command again".to_string(),
        Advice::GiveSlug { example } => format!(
            "; give one with --slug (lowercase ASCII words joined by `-`, such as --slug {example})"
        ),
        Advice::Overrule { then } => format!("; rerun with --force to {then}"),
        Advice::OrOverrule => ", or rerun with --force".to_string(),
        Advice::RePoint { old, new } => {
            format!(" (or give --force to re-point `{old}` at `{new}`)")
        }
        Advice::Fix { path } => format!("fix: `memlint check --fix {path}`"),
        Advice::WasForced => " (--force)".to_string(),
        Advice::OrForceDrop => ", or use --force to drop them".to_string(),
        Advice::ForceClaim => " `staging claim --force`".to_string(),
        Advice::OrClaimForced => " or claim with --force".to_string(),
        Advice::SayKind => "; say which with --kind".to_string(),
        Advice::NameRoot => ", or name one with --root DIR".to_string(),
        Advice::NameConfig => " (name it with --config to use it)".to_string(),
        Advice::MergeAgentSettings => {
            " (or let `memlint init --agent-settings` merge them in)".to_string()
        }
    }
}

/// The command line's name for what an engine message names: the flag
/// given, the command (and flags) that reads git.
pub(crate) fn name(name: &Name) -> String {
    match name {
        Name::Date => "--date",
        Name::Source => "--source",
        Name::File => "--file",
        Name::Root => "--root",
        Name::AgentSettings => "--agent-settings",
        Name::Git(asking) => match asking {
            Asking::CommitMessage => "`check --staged --commit-msg`",
            Asking::Staged => "`check --staged`",
            Asking::Base => "`check --base`",
            Asking::Log => "`log`",
            Asking::Drift => "`sources/drifted`",
            Asking::Import => "`import`",
            Asking::InitHooks => "`init --hooks`",
            Asking::InitMerge => "`init --merge`",
            Asking::ContextRotate => "`context rotate`",
            Asking::Index => "`check`",
            Asking::StagingRemote => "`staging --remote`",
        },
    }
    .to_string()
}

/// A workspace error as the command line says it: its names and advice
/// in the command line's words.
pub(crate) fn workspace_error(e: &crate::engine::workspace::WorkspaceError) -> String {
    said(e.text(name), e.advice())
}

/// An engine message followed by the command line's words for its advice.
pub(crate) fn said(message: impl std::fmt::Display, advice: Option<Advice>) -> String {
    format!(
        "{message}{}",
        advice.as_ref().map(words).unwrap_or_default()
    )
}
