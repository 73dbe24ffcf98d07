//! What a user can do next, as the engine knows it: typed, not worded.
//! Errors and texts of the engine carry an [`Advice`]; each front end
//! words it for its own user ([`Words`]): flags and commands on the command
//! line, tool and parameter names over MCP.

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
}

/// A front end's wording of an [`Advice`]: the clause it appends to the
/// engine's message, starting with its own connective (` (`…`)`, `, or`).
pub(crate) type Words = fn(&Advice) -> String;
