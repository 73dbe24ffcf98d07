//! The rule registry: every rule of docs/rules.md once, with how it runs.
//!
//! A rule that looks at one record is a function `fn(&Record, &mut Sink)` in
//! its rule's file; adding one is a file, a registry line, a fixture and a
//! test. Rules checked while reading a file (encoding, delimiters, YAML) are
//! `Check::Reader` (the reader calls the check in the rule's file); rules over the whole workspace are `Check::Workspace`.
//!
//! This module imports every rule; only the linter's driver (and the front
//! ends, through it) import it, so no rule imports it back.

use crate::lint::record::Record;
use crate::lint::rules::body;
use crate::lint::rules::content;
use crate::lint::rules::context;
use crate::lint::rules::date;
use crate::lint::rules::format;
use crate::lint::rules::frontmatter;
use crate::lint::rules::history;
use crate::lint::rules::layout;
use crate::lint::rules::secrets;
use crate::lint::rules::session;
use crate::lint::rules::slug;
use crate::lint::rules::sources;
use crate::lint::rules::staging;
use crate::lint::rules::status;
use crate::lint::rules::summary;
use crate::lint::rules::text;
use crate::lint::rules::workspace;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// How a rule is run.
#[derive(Clone, Copy)]
pub enum Check {
    /// Checked by the reader (`lint::lint_file`), before or while the
    /// front matter is parsed: the reader calls the check in the rule's
    /// file at its step of docs/rules.md's precedence.
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

/// A rule of the registry: what it is (`Rule`) and how it runs.
pub struct RuleDef {
    /// What the rule is: its name, default severity, fixability, summary.
    pub rule: Rule,
    /// How the rule runs.
    pub check: Check,
    /// The rule's documentation (what, why, example, fixed form, fix,
    /// configuration), as `memlint rule NAME` prints it.
    pub doc: &'static str,
}

impl RuleDef {
    /// The rule's stable name.
    pub fn name(&self) -> &'static str {
        self.rule.as_str()
    }
}

const fn def(rule: Rule, check: Check, doc: &'static str) -> RuleDef {
    RuleDef { rule, check, doc }
}

use Check::{History, Reader};

/// Every rule, in the order of docs/rules.md (and of `Rule::ALL`).
pub static REGISTRY: &[RuleDef] = &[
    def(Rule::FrontmatterMissing, Reader, frontmatter::missing::DOC),
    def(
        Rule::FrontmatterUnclosed,
        Reader,
        frontmatter::unclosed::DOC,
    ),
    def(Rule::FrontmatterParse, Reader, frontmatter::parse::DOC),
    def(
        Rule::FrontmatterDuplicateKey,
        Check::Record(frontmatter::duplicate_key::check),
        frontmatter::duplicate_key::DOC,
    ),
    def(
        Rule::FrontmatterHashInValue,
        Check::Record(frontmatter::hash_in_value::check),
        frontmatter::hash_in_value::DOC,
    ),
    def(
        Rule::FrontmatterRequired,
        Check::Record(frontmatter::required::check),
        frontmatter::required::DOC,
    ),
    def(
        Rule::FrontmatterType,
        Check::Record(frontmatter::r#type::check),
        frontmatter::r#type::DOC,
    ),
    def(
        Rule::FrontmatterUnknownKey,
        Check::Record(frontmatter::unknown_key::check),
        frontmatter::unknown_key::DOC,
    ),
    def(Rule::FormatBom, Reader, format::bom::DOC),
    def(Rule::FormatCrlf, Reader, format::crlf::DOC),
    def(Rule::FormatEncoding, Reader, format::encoding::DOC),
    def(Rule::FormatTooLarge, Reader, format::too_large::DOC),
    def(
        Rule::FormatConflictMarkers,
        Reader,
        format::conflict_markers::DOC,
    ),
    def(Rule::SlugFormat, Reader, slug::format::DOC),
    def(
        Rule::SlugMismatch,
        Check::Record(slug::mismatch::check),
        slug::mismatch::DOC,
    ),
    def(
        Rule::SlugSimilar,
        Check::Workspace(Some(slug::similar::check)),
        slug::similar::DOC,
    ),
    def(
        Rule::ContentDuplicate,
        Check::Workspace(Some(content::duplicate::check)),
        content::duplicate::DOC,
    ),
    def(
        Rule::SourcesMissing,
        Check::Record(sources::missing::check),
        sources::missing::DOC,
    ),
    def(
        Rule::SourcesFormat,
        Check::Record(sources::format::check),
        sources::format::DOC,
    ),
    def(
        Rule::SourcesDuplicate,
        Check::Record(sources::duplicate::check),
        sources::duplicate::DOC,
    ),
    def(
        Rule::SourcesTooMany,
        Check::Record(sources::too_many::check),
        sources::too_many::DOC,
    ),
    def(
        Rule::SourcesThin,
        Check::Record(sources::thin::check),
        sources::thin::DOC,
    ),
    def(
        Rule::SourcesDangling,
        Check::Workspace(Some(sources::dangling::check)),
        sources::dangling::DOC,
    ),
    def(Rule::SourcesDrifted, History, sources::drifted::DOC),
    def(
        Rule::SourcesReplaced,
        Check::Workspace(Some(sources::replaced::check)),
        sources::replaced::DOC,
    ),
    def(
        Rule::StatusMissingTarget,
        Check::Record(status::missing_target::check),
        status::missing_target::DOC,
    ),
    def(
        Rule::StatusTargetWithoutReplaced,
        Check::Record(status::target_without_replaced::check),
        status::target_without_replaced::DOC,
    ),
    def(
        Rule::StatusDanglingTarget,
        Check::Workspace(Some(status_graph)),
        status::dangling_target::DOC,
    ),
    def(
        Rule::StatusCycle,
        Check::Workspace(None),
        status::cycle::DOC,
    ),
    def(
        Rule::StatusChain,
        Check::Workspace(None),
        status::chain::DOC,
    ),
    def(
        Rule::DateFormat,
        Check::Record(date::format::check),
        date::format::DOC,
    ),
    def(
        Rule::DateRelative,
        Check::Record(date::relative::check),
        date::relative::DOC,
    ),
    def(Rule::LayoutBannedDir, Reader, layout::banned_dir::DOC),
    def(Rule::LayoutUnknownFile, Reader, layout::unknown_file::DOC),
    def(
        Rule::BodyTooLong,
        Check::Record(body::too_long::check),
        body::too_long::DOC,
    ),
    def(
        Rule::SecretsDetected,
        Check::Record(secrets::detected::check),
        secrets::detected::DOC,
    ),
    def(Rule::TextInvisible, Reader, text::invisible::DOC),
    def(
        Rule::TextInjection,
        Check::Record(text::injection::check),
        text::injection::DOC,
    ),
    def(
        Rule::SummaryTooLong,
        Check::Record(summary::too_long::check),
        summary::too_long::DOC,
    ),
    def(
        Rule::StagingId,
        Check::Record(staging::id::check),
        staging::id::DOC,
    ),
    def(
        Rule::SessionId,
        Check::Record(session::id::check),
        session::id::DOC,
    ),
    def(
        Rule::SessionSections,
        Check::Record(session::sections::check),
        session::sections::DOC,
    ),
    def(
        Rule::SessionAbsolutePath,
        Check::Record(session::absolute_path::check),
        session::absolute_path::DOC,
    ),
    def(
        Rule::SessionPlanSource,
        Check::Record(session::plan_source::check),
        session::plan_source::DOC,
    ),
    def(
        Rule::SessionWorkingFiles,
        Check::Record(session::working_files::check),
        session::working_files::DOC,
    ),
    def(
        Rule::SessionDecisionReason,
        Check::Record(session::decision_reason::check),
        session::decision_reason::DOC,
    ),
    def(
        Rule::ContextBlockDate,
        Check::Context(context::block_date::check),
        context::block_date::DOC,
    ),
    def(
        Rule::ContextExportStale,
        Check::Workspace(None),
        context::export_stale::DOC,
    ),
    def(
        Rule::HistoryUnexplainedRemoval,
        History,
        history::unexplained_removal::DOC,
    ),
    def(
        Rule::HistoryDecisionRewritten,
        History,
        history::decision_rewritten::DOC,
    ),
];

/// The rule named `name`.
pub fn lookup(name: &str) -> Option<&'static RuleDef> {
    REGISTRY.iter().find(|r| r.name() == name)
}

/// Every rule name.
pub fn names() -> Vec<&'static str> {
    Rule::names()
}

/// The one driver of the cross-record rules: runs every one over `view`.
/// `slug/similar` runs over `similar` instead when one is given: the git
/// modes read only the changed records, and hand in the names of the
/// clusters those can belong to.
pub(crate) fn check_workspace(
    view: &workspace::View,
    similar: Option<&workspace::View>,
    out: &mut workspace::WsSink,
) {
    for rule in REGISTRY {
        if let Check::Workspace(Some(f)) = rule.check {
            match similar {
                Some(near) if rule.rule == Rule::SlugSimilar => f(near, out),
                _ => f(view, out),
            }
        }
    }
}

/// `status/dangling-target`, `status/cycle` and `status/chain`, each judged
/// in its own file over one `replaced_by` graph built for the three.
fn status_graph(view: &workspace::View, out: &mut workspace::WsSink) {
    let graph = status::graph::Graph::of(view);
    status::dangling_target::check(view, &graph, out);
    status::cycle::check(view, &graph, out);
    status::chain::check(view, &graph, out);
}
