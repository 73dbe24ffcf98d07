//! Rule names: every rule of docs/rules.md once, as a type. A rule's name,
//! default severity, fixability and one-line summary are data and live
//! here; what it checks, how `--fix` repairs it and its documentation live
//! together in its file under `lint/rules/`.

use crate::model::severity::Severity;
use std::fmt;

/// One lint rule. [`Rule::as_str`] gives its stable name (`status/chain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// `frontmatter/missing`: a record has no front matter.
    FrontmatterMissing,
    /// `frontmatter/unclosed`: no closing `---`.
    FrontmatterUnclosed,
    /// `frontmatter/parse`: the YAML does not parse, or is not a mapping.
    FrontmatterParse,
    /// `frontmatter/duplicate-key`: a key appears twice.
    FrontmatterDuplicateKey,
    /// `frontmatter/hash-in-value`: an unquoted value is cut short by ` #`.
    FrontmatterHashInValue,
    /// `frontmatter/required`: a required key is missing.
    FrontmatterRequired,
    /// `frontmatter/type`: a value has the wrong type or is outside its enum.
    FrontmatterType,
    /// `frontmatter/unknown-key`: a key the kind does not define.
    FrontmatterUnknownKey,
    /// `format/bom`: the file starts with a BOM.
    FormatBom,
    /// `format/crlf`: CRLF line endings.
    FormatCrlf,
    /// `format/encoding`: the file is not valid UTF-8 or contains NUL.
    FormatEncoding,
    /// `format/too-large`: the file exceeds `max_file_bytes`.
    FormatTooLarge,
    /// `format/conflict-markers`: merge conflict markers left in the file.
    FormatConflictMarkers,
    /// `slug/format`: a file stem is not a slug.
    SlugFormat,
    /// `slug/mismatch`: a `slug` key differs from the file stem.
    SlugMismatch,
    /// `slug/similar`: slugs of the same kind look like near-duplicates.
    SlugSimilar,
    /// `content/duplicate`: two active records of one kind say nearly the same thing.
    ContentDuplicate,
    /// `sources/missing`: a kind that requires sources has none.
    SourcesMissing,
    /// `sources/format`: an entry is not a source string.
    SourcesFormat,
    /// `sources/duplicate`: the same source entry twice.
    SourcesDuplicate,
    /// `sources/too-many`: more than `max_sources` entries.
    SourcesTooMany,
    /// `sources/thin`: a long body backed by a single source.
    SourcesThin,
    /// `sources/dangling`: a source points at nothing.
    SourcesDangling,
    /// `sources/replaced`: a source names a replaced record.
    SourcesReplaced,
    /// `sources/drifted`: a `file:` source changed after the record was last written.
    SourcesDrifted,
    /// `status/missing-target`: `status: replaced` without `replaced_by`.
    StatusMissingTarget,
    /// `status/target-without-replaced`: `replaced_by` while status is not `replaced`.
    StatusTargetWithoutReplaced,
    /// `status/dangling-target`: `replaced_by` names no record of the same kind.
    StatusDanglingTarget,
    /// `status/cycle`: `replaced_by` leads back to a record already visited.
    StatusCycle,
    /// `status/chain`: `replaced_by` points at a record that is itself replaced.
    StatusChain,
    /// `date/format`: a date is not an absolute `YYYY-MM-DD`.
    DateFormat,
    /// `date/relative`: a relative date expression in a title, description or body.
    DateRelative,
    /// `layout/banned-dir`: a file under a banned directory.
    LayoutBannedDir,
    /// `layout/unknown-file`: a file in a memory directory that is no record.
    LayoutUnknownFile,
    /// `body/too-long`: a body longer than `max_body_chars`.
    BodyTooLong,
    /// `secrets/detected`: something that looks like a credential.
    SecretsDetected,
    /// `text/invisible`: an invisible format character in a field or the body.
    TextInvisible,
    /// `text/injection`: text that tells the model to drop its instructions.
    TextInjection,
    /// `summary/too-long`: the summary exceeds `summary_max_tokens`.
    SummaryTooLong,
    /// `staging/id`: a staging id that does not match its format or file stem.
    StagingId,
    /// `session/id`: a session id that does not match its format or file stem.
    SessionId,
    /// `session/sections`: a section is missing, repeated or out of order.
    SessionSections,
    /// `session/absolute-path`: a project root or file-list entry is not absolute.
    SessionAbsolutePath,
    /// `session/plan-source`: `Execution Plan` lacks a valid `### Source:` line.
    SessionPlanSource,
    /// `session/working-files`: fewer than 3 or more than 8 working files.
    SessionWorkingFiles,
    /// `session/decision-reason`: a `Decisions` entry without `: <reasoning>`.
    SessionDecisionReason,
    /// `context/block-date`: a `CONTEXT.md` block heading without an absolute date.
    ContextBlockDate,
    /// `context/export-stale`: the block `memlint export agents-md` wrote is out of date.
    ContextExportStale,
    /// `history/unexplained-removal`: a record removed without a `Memlint-GC:` trailer.
    HistoryUnexplainedRemoval,
    /// `history/decision-rewritten`: an active decision changed in place.
    HistoryDecisionRewritten,
}

/// A rule's data: what [`Rule::meta`] returns.
struct Meta {
    name: &'static str,
    default: Severity,
    fixable: bool,
    summary: &'static str,
}

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;

const fn meta(name: &'static str, default: Severity, fixable: bool, summary: &'static str) -> Meta {
    Meta {
        name,
        default,
        fixable,
        summary,
    }
}

/// Every rule's data, in the order the variants are declared.
const META: [Meta; 50] = [
    // Rule::FrontmatterMissing
    meta(
        "frontmatter/missing",
        E,
        false,
        "a record has no front matter",
    ),
    // Rule::FrontmatterUnclosed
    meta("frontmatter/unclosed", E, false, "no closing `---`"),
    // Rule::FrontmatterParse
    meta(
        "frontmatter/parse",
        E,
        false,
        "the YAML does not parse, or is not a mapping",
    ),
    // Rule::FrontmatterDuplicateKey
    meta("frontmatter/duplicate-key", E, false, "a key appears twice"),
    // Rule::FrontmatterHashInValue
    meta(
        "frontmatter/hash-in-value",
        W,
        false,
        "an unquoted value is cut short by ` #`",
    ),
    // Rule::FrontmatterRequired
    meta(
        "frontmatter/required",
        E,
        false,
        "a required key is missing",
    ),
    // Rule::FrontmatterType
    meta(
        "frontmatter/type",
        E,
        false,
        "a value has the wrong type or is outside its enum",
    ),
    // Rule::FrontmatterUnknownKey
    meta(
        "frontmatter/unknown-key",
        W,
        true,
        "a key the kind does not define",
    ),
    // Rule::FormatBom
    meta("format/bom", W, true, "the file starts with a BOM"),
    // Rule::FormatCrlf
    meta("format/crlf", W, true, "CRLF line endings"),
    // Rule::FormatEncoding
    meta(
        "format/encoding",
        E,
        false,
        "the file is not valid UTF-8 or contains NUL",
    ),
    // Rule::FormatTooLarge
    meta(
        "format/too-large",
        E,
        false,
        "the file exceeds `max_file_bytes`",
    ),
    // Rule::FormatConflictMarkers
    meta(
        "format/conflict-markers",
        E,
        false,
        "merge conflict markers left in the file",
    ),
    // Rule::SlugFormat
    meta("slug/format", E, false, "a file stem is not a slug"),
    // Rule::SlugMismatch
    meta(
        "slug/mismatch",
        E,
        false,
        "a `slug` key differs from the file stem",
    ),
    // Rule::SlugSimilar
    meta(
        "slug/similar",
        W,
        false,
        "slugs of the same kind look like near-duplicates",
    ),
    // Rule::ContentDuplicate
    meta(
        "content/duplicate",
        W,
        false,
        "two active records of one kind say nearly the same thing",
    ),
    // Rule::SourcesMissing
    meta(
        "sources/missing",
        E,
        false,
        "a kind that requires sources has none",
    ),
    // Rule::SourcesFormat
    meta(
        "sources/format",
        E,
        false,
        "an entry is not a source string",
    ),
    // Rule::SourcesDuplicate
    meta("sources/duplicate", W, true, "the same source entry twice"),
    // Rule::SourcesTooMany
    meta(
        "sources/too-many",
        W,
        false,
        "more than `max_sources` entries",
    ),
    // Rule::SourcesThin
    meta(
        "sources/thin",
        W,
        false,
        "a long body backed by a single source",
    ),
    // Rule::SourcesDangling
    meta("sources/dangling", W, false, "a source points at nothing"),
    // Rule::SourcesReplaced
    meta(
        "sources/replaced",
        W,
        true,
        "a source names a replaced record",
    ),
    // Rule::SourcesDrifted
    meta(
        "sources/drifted",
        W,
        true,
        "a `file:` source changed after the record was last written",
    ),
    // Rule::StatusMissingTarget
    meta(
        "status/missing-target",
        E,
        false,
        "`status: replaced` without `replaced_by`",
    ),
    // Rule::StatusTargetWithoutReplaced
    meta(
        "status/target-without-replaced",
        E,
        false,
        "`replaced_by` while status is not `replaced`",
    ),
    // Rule::StatusDanglingTarget
    meta(
        "status/dangling-target",
        E,
        false,
        "`replaced_by` names no record of the same kind",
    ),
    // Rule::StatusCycle
    meta(
        "status/cycle",
        E,
        false,
        "`replaced_by` leads back to a record already visited",
    ),
    // Rule::StatusChain
    meta(
        "status/chain",
        W,
        true,
        "`replaced_by` points at a record that is itself replaced",
    ),
    // Rule::DateFormat
    meta(
        "date/format",
        E,
        false,
        "a date is not an absolute `YYYY-MM-DD`",
    ),
    // Rule::DateRelative
    meta(
        "date/relative",
        W,
        false,
        "a relative date expression in a title, description or body",
    ),
    // Rule::LayoutBannedDir
    meta(
        "layout/banned-dir",
        E,
        false,
        "a file under a banned directory",
    ),
    // Rule::LayoutUnknownFile
    meta(
        "layout/unknown-file",
        W,
        false,
        "a file in a memory directory that is no record",
    ),
    // Rule::BodyTooLong
    meta(
        "body/too-long",
        W,
        false,
        "a body longer than `max_body_chars`",
    ),
    // Rule::SecretsDetected
    meta(
        "secrets/detected",
        E,
        false,
        "something that looks like a credential",
    ),
    // Rule::TextInvisible
    meta(
        "text/invisible",
        E,
        true,
        "an invisible format character in a field or the body",
    ),
    // Rule::TextInjection
    meta(
        "text/injection",
        W,
        false,
        "text that tells the model to drop its instructions",
    ),
    // Rule::SummaryTooLong
    meta(
        "summary/too-long",
        W,
        false,
        "the summary exceeds `summary_max_tokens`",
    ),
    // Rule::StagingId
    meta(
        "staging/id",
        E,
        false,
        "a staging id that does not match its format or file stem",
    ),
    // Rule::SessionId
    meta(
        "session/id",
        E,
        false,
        "a session id that does not match its format or file stem",
    ),
    // Rule::SessionSections
    meta(
        "session/sections",
        E,
        false,
        "a section is missing, repeated or out of order",
    ),
    // Rule::SessionAbsolutePath
    meta(
        "session/absolute-path",
        E,
        false,
        "a project root or file-list entry is not absolute",
    ),
    // Rule::SessionPlanSource
    meta(
        "session/plan-source",
        E,
        false,
        "`Execution Plan` lacks a valid `### Source:` line",
    ),
    // Rule::SessionWorkingFiles
    meta(
        "session/working-files",
        W,
        false,
        "fewer than 3 or more than 8 working files",
    ),
    // Rule::SessionDecisionReason
    meta(
        "session/decision-reason",
        W,
        false,
        "a `Decisions` entry without `: <reasoning>`",
    ),
    // Rule::ContextBlockDate
    meta(
        "context/block-date",
        W,
        false,
        "a `CONTEXT.md` block heading without an absolute date",
    ),
    // Rule::ContextExportStale
    meta(
        "context/export-stale",
        W,
        true,
        "the memory block of `AGENTS.md` (or `CLAUDE.md`, …) is out of date with the records",
    ),
    // Rule::HistoryUnexplainedRemoval
    meta(
        "history/unexplained-removal",
        E,
        false,
        "a record removed without a `Memlint-GC:` trailer",
    ),
    // Rule::HistoryDecisionRewritten
    meta(
        "history/decision-rewritten",
        W,
        false,
        "an active decision changed in place",
    ),
];

impl Rule {
    /// Every rule, in the order of docs/rules.md.
    pub(crate) const ALL: [Rule; 50] = [
        Rule::FrontmatterMissing,
        Rule::FrontmatterUnclosed,
        Rule::FrontmatterParse,
        Rule::FrontmatterDuplicateKey,
        Rule::FrontmatterHashInValue,
        Rule::FrontmatterRequired,
        Rule::FrontmatterType,
        Rule::FrontmatterUnknownKey,
        Rule::FormatBom,
        Rule::FormatCrlf,
        Rule::FormatEncoding,
        Rule::FormatTooLarge,
        Rule::FormatConflictMarkers,
        Rule::SlugFormat,
        Rule::SlugMismatch,
        Rule::SlugSimilar,
        Rule::ContentDuplicate,
        Rule::SourcesMissing,
        Rule::SourcesFormat,
        Rule::SourcesDuplicate,
        Rule::SourcesTooMany,
        Rule::SourcesThin,
        Rule::SourcesDangling,
        Rule::SourcesReplaced,
        Rule::SourcesDrifted,
        Rule::StatusMissingTarget,
        Rule::StatusTargetWithoutReplaced,
        Rule::StatusDanglingTarget,
        Rule::StatusCycle,
        Rule::StatusChain,
        Rule::DateFormat,
        Rule::DateRelative,
        Rule::LayoutBannedDir,
        Rule::LayoutUnknownFile,
        Rule::BodyTooLong,
        Rule::SecretsDetected,
        Rule::TextInvisible,
        Rule::TextInjection,
        Rule::SummaryTooLong,
        Rule::StagingId,
        Rule::SessionId,
        Rule::SessionSections,
        Rule::SessionAbsolutePath,
        Rule::SessionPlanSource,
        Rule::SessionWorkingFiles,
        Rule::SessionDecisionReason,
        Rule::ContextBlockDate,
        Rule::ContextExportStale,
        Rule::HistoryUnexplainedRemoval,
        Rule::HistoryDecisionRewritten,
    ];

    const fn meta(self) -> &'static Meta {
        // The variants are numbered in declaration order, as META is.
        &META[self as usize]
    }

    /// The stable name, `family/name`.
    pub const fn as_str(self) -> &'static str {
        self.meta().name
    }

    /// The family, the part of the name before `/`.
    pub(crate) fn family(self) -> &'static str {
        self.as_str().split('/').next().unwrap_or_default()
    }

    /// The severity when the configuration does not set one.
    pub(crate) const fn default_severity(self) -> Severity {
        self.meta().default
    }

    /// Whether `memlint check --fix` repairs (some of) its findings.
    pub const fn fixable(self) -> bool {
        self.meta().fixable
    }

    /// What fires it, in one line.
    pub(crate) const fn summary(self) -> &'static str {
        self.meta().summary
    }

    /// The rule named `name`, if any: one hash lookup, not a comparison
    /// with each rule's name in turn (the caches name the rule of every
    /// finding they hold: tens of thousands read on a warm check).
    pub(crate) fn from_name(name: &str) -> Option<Rule> {
        static BY_NAME: std::sync::OnceLock<crate::model::hashing::Map<&'static str, Rule>> =
            std::sync::OnceLock::new();
        BY_NAME
            .get_or_init(|| Rule::ALL.into_iter().map(|r| (r.as_str(), r)).collect())
            .get(name)
            .copied()
    }

    /// Every rule name, in the order of [`Rule::ALL`].
    pub(crate) fn names() -> Vec<&'static str> {
        Rule::ALL.iter().map(|r| r.as_str()).collect()
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn the_table_is_in_declaration_order() {
        for (i, r) in Rule::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i, "{r}");
            // The variant is the name in CamelCase: META's row is its own.
            let camel: String = r
                .as_str()
                .split(['/', '-'])
                .map(|w| w[..1].to_uppercase() + &w[1..])
                .collect();
            assert_eq!(format!("{r:?}"), camel);
        }
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        for (i, r) in Rule::ALL.iter().enumerate() {
            assert_eq!(Rule::from_name(r.as_str()), Some(*r));
            assert!(Rule::ALL[..i].iter().all(|o| o.as_str() != r.as_str()));
            assert!(r.as_str().contains('/'), "{r}");
        }
        assert_eq!(Rule::from_name("status/nope"), None);
    }
}
