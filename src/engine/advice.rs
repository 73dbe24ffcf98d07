//! What a user can do next, as the engine knows it: typed, not worded.
//! Errors and texts of the engine carry an [`Advice`]; each front end
//! words it for its own user ([`Words`]): flags and commands on the command
//! line, tool and parameter names over MCP. What a message names that the
//! user gave or ran (an input, the mode that reads git) is a [`Name`], which
//! each front end names too ([`Names`]).

/// One thing the user can do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Advice {
    /// Do it anyway, overriding the check that refused it (where the front
    /// end can).
    Force,
    /// Recall the records a cut context left out, by searching (the long
    /// form, for a notice with room).
    Search,
    /// The same, in a few words (a notice with little room).
    SearchBrief,
    /// List the stored session memories.
    ListSessions,
    /// Get the empty session text to fill in.
    SessionTemplate,
    /// Look at what is wrong with the record at `path` (root-relative).
    Check { path: String },
    /// Write a new decision that replaces the active decision `slug`.
    ReplaceDecision { slug: String },
    /// Re-point the already replaced record `old` at the new record `new`,
    /// overriding the refusal.
    RePoint { old: String, new: String },
    /// Write the new record as the replacement of `old` if it supersedes
    /// it, or write it anyway, overriding the refusal.
    SupersedeOrForce { old: String },
    /// Name the record's file: give a slug (lowercase ASCII words joined
    /// by `-`), such as `example`.
    GiveSlug { example: String },
    /// Nothing was done because another writer came first: do it again.
    Retry,
    /// Run it again overriding the refusal (forced), which then does
    /// `then` (such as "replace it").
    Overrule { then: String },
    /// The other way out, after the one the message gives: run it again
    /// overriding the refusal (forced).
    OrOverrule,
    /// A record whose cited file changed was checked against it: verify it
    /// if it still holds, or replace it.
    VerifyOrReplace,
    /// The record at `path` (root-relative, shown) has findings memlint
    /// fixes itself: how to have them fixed.
    Fix { path: String },
    /// A note that what it follows was done because the user overrode the
    /// refusal (forced).
    WasForced,
    /// The other way out of keeping what is not committed yet: override the
    /// refusal (forced) to drop it.
    OrForceDrop,
    /// Take over the consolidation lock whatever it holds (a forced claim).
    ForceClaim,
    /// The other way out of a lock that cannot be read: claim it whatever
    /// it holds (a forced claim).
    OrClaimForced,
    /// A name that several kinds of record share: say which kind.
    SayKind,
    /// The root found holds no workspace: the other way out, after making
    /// one there, is to name the root of one.
    NameRoot,
    /// The workspace's configuration file leads out of its root: name the
    /// file on purpose to read it anyway.
    NameConfig,
    /// The agent-runtime hooks shown can be merged into the runtime's
    /// settings file by memlint.
    MergeAgentSettings,
}

/// What an engine message names that the user gave or ran, which each
/// front end calls by its own name; [`std::fmt::Display`] gives neutral
/// words (for a front end with none of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name {
    /// The date a new record is written with.
    Date,
    /// Where an activity log comes from.
    Source,
    /// The file an export writes the block into.
    File,
    /// The workspace root given.
    Root,
    /// The agent settings file memlint's hooks are merged into.
    AgentSettings,
    /// What reads git.
    Git(crate::io::git::Asking),
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Date => f.write_str("the date"),
            Name::Source => f.write_str("the source"),
            Name::File => f.write_str("the file"),
            Name::Root => f.write_str("the workspace root"),
            Name::AgentSettings => f.write_str("the agent settings file"),
            Name::Git(asking) => asking.fmt(f),
        }
    }
}

/// A front end's name for a [`Name`].
pub(crate) type Names = fn(&Name) -> String;

/// The neutral [`Names`]: [`Name`]'s own words.
pub(crate) fn neutral(name: &Name) -> String {
    name.to_string()
}

/// A front end's wording of an [`Advice`]: the clause it appends to the
/// engine's message, starting with its own connective (` (`…`)`, `, or`).
pub(crate) type Words = fn(&Advice) -> String;
