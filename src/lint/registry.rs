//! The rule registry: every rule of SPEC §3 once, with how it runs.
//!
//! A rule that looks at one record is a function `fn(&Record, &mut Sink)` in
//! its rule's file; adding one is a file, a registry line, a fixture and a
//! test. Rules emitted while reading a file (encoding, delimiters, YAML) are
//! `Check::Reader`; rules over the whole workspace are `Check::Workspace`.
//!
//! This module imports every rule; only the linter's driver (and the front
//! ends, through it) import it, so no rule imports it back.

use crate::lint::record::Record;
use crate::lint::rules::body;
use crate::lint::rules::context;
use crate::lint::rules::date;
use crate::lint::rules::frontmatter;
use crate::lint::rules::secrets;
use crate::lint::rules::session;
use crate::lint::rules::slug;
use crate::lint::rules::sources;
use crate::lint::rules::staging;
use crate::lint::rules::status;
use crate::lint::rules::summary;
use crate::lint::rules::workspace;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// How a rule is run.
#[derive(Clone, Copy)]
pub enum Check {
    /// Emitted by the reader, before or while the front matter is parsed.
    Reader,
    /// Runs on one parsed record.
    Record(fn(&Record, &mut Sink)),
    /// Runs on `CONTEXT.md`.
    Context(fn(&str, &mut Sink)),
    /// Needs every record of the workspace; several rules may share one
    /// function, which then sits on the first of them.
    Workspace(Option<fn(&workspace::View, &mut workspace::WsSink)>),
    /// Needs git history (`check --base`).
    History,
}

/// A rule of the registry: what it is ([`Rule`]) and how it runs.
pub struct RuleDef {
    pub rule: Rule,
    pub check: Check,
}

impl RuleDef {
    /// The rule's stable name.
    pub fn name(&self) -> &'static str {
        self.rule.as_str()
    }
}

const fn def(rule: Rule, check: Check) -> RuleDef {
    RuleDef { rule, check }
}

use Check::{History, Reader};

/// Every rule, in the order of SPEC §3 (and of [`Rule::ALL`]).
pub static REGISTRY: &[RuleDef] = &[
    def(Rule::FrontmatterMissing, Reader),
    def(Rule::FrontmatterUnclosed, Reader),
    def(Rule::FrontmatterParse, Reader),
    def(
        Rule::FrontmatterDuplicateKey,
        Check::Record(frontmatter::duplicate_key),
    ),
    def(
        Rule::FrontmatterHashInValue,
        Check::Record(frontmatter::hash_in_value),
    ),
    def(
        Rule::FrontmatterRequired,
        Check::Record(frontmatter::required),
    ),
    def(Rule::FrontmatterType, Check::Record(frontmatter::type_)),
    def(
        Rule::FrontmatterUnknownKey,
        Check::Record(frontmatter::unknown_key),
    ),
    def(Rule::FormatBom, Reader),
    def(Rule::FormatCrlf, Reader),
    def(Rule::FormatEncoding, Reader),
    def(Rule::FormatTooLarge, Reader),
    def(Rule::SlugFormat, Reader),
    def(Rule::SlugMismatch, Check::Record(slug::mismatch)),
    def(Rule::SlugSimilar, Check::Workspace(Some(slug::similar))),
    def(Rule::SourcesMissing, Check::Record(sources::missing)),
    def(Rule::SourcesFormat, Check::Record(sources::format)),
    def(Rule::SourcesDuplicate, Check::Record(sources::duplicate)),
    def(Rule::SourcesTooMany, Check::Record(sources::too_many)),
    def(Rule::SourcesThin, Check::Record(sources::thin)),
    def(
        Rule::SourcesDangling,
        Check::Workspace(Some(sources::dangling)),
    ),
    def(
        Rule::StatusMissingTarget,
        Check::Record(status::missing_target),
    ),
    def(
        Rule::StatusTargetWithoutReplaced,
        Check::Record(status::target_without_replaced),
    ),
    def(
        Rule::StatusDanglingTarget,
        Check::Workspace(Some(status::graph)),
    ),
    def(Rule::StatusCycle, Check::Workspace(None)),
    def(Rule::StatusChain, Check::Workspace(None)),
    def(Rule::DateFormat, Check::Record(date::format)),
    def(Rule::DateRelative, Check::Record(date::relative)),
    def(Rule::LayoutBannedDir, Reader),
    def(Rule::LayoutUnknownFile, Reader),
    def(Rule::BodyTooLong, Check::Record(body::too_long)),
    def(Rule::SecretsDetected, Check::Record(secrets::detected)),
    def(Rule::SummaryTooLong, Check::Record(summary::too_long)),
    def(Rule::StagingId, Check::Record(staging::id)),
    def(Rule::SessionId, Check::Record(session::id)),
    def(Rule::SessionSections, Check::Record(session::sections_rule)),
    def(
        Rule::SessionAbsolutePath,
        Check::Record(session::absolute_path),
    ),
    def(
        Rule::SessionPlanSource,
        Check::Record(session::plan_source_rule),
    ),
    def(
        Rule::SessionWorkingFiles,
        Check::Record(session::working_files),
    ),
    def(
        Rule::SessionDecisionReason,
        Check::Record(session::decision_reason),
    ),
    def(Rule::ContextBlockDate, Check::Context(context::block_date)),
    def(Rule::HistoryUnexplainedRemoval, History),
    def(Rule::HistoryDecisionRewritten, History),
];

/// The rule named `name`.
pub fn lookup(name: &str) -> Option<&'static RuleDef> {
    REGISTRY.iter().find(|r| r.name() == name)
}

/// Every rule name.
pub fn names() -> Vec<&'static str> {
    Rule::names()
}

/// Runs every cross-record rule.
pub fn check_workspace(view: &workspace::View, out: &mut workspace::WsSink) {
    for rule in REGISTRY {
        if let Check::Workspace(Some(f)) = rule.check {
            f(view, out);
        }
    }
}
