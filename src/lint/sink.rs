//! Where rules put their findings: a leaf every rule imports.

use crate::model::rule::Rule;
use std::ops::Range;

/// A finding before it is located and given its configured severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub span: Range<usize>,
    pub message: String,
    /// `--fix` can repair this finding (only ever true for a fixable rule).
    pub fixable: bool,
}

/// Where rules put their findings.
#[derive(Default)]
pub struct Sink {
    pub findings: Vec<Finding>,
}

impl Sink {
    pub(crate) fn emit(&mut self, rule: Rule, span: Range<usize>, message: impl Into<String>) {
        self.emit_fixable(rule, span, message, true);
    }

    /// [`Sink::emit`] for a finding of a fixable rule that `--fix` may not
    /// be able to repair: `fixable` says whether it can.
    pub(crate) fn emit_fixable(
        &mut self,
        rule: Rule,
        span: Range<usize>,
        message: impl Into<String>,
        fixable: bool,
    ) {
        self.findings.push(Finding {
            rule,
            span,
            message: message.into(),
            fixable,
        });
    }
}
