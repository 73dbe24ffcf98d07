//! Progress bars on standard error (indicatif): the engine reports
//! progress through a callback, the CLI draws it.

use std::io::IsTerminal;

/// A progress bar on standard error for `len` files, hidden unless `show`
/// is set and standard error is a terminal.
pub(crate) fn progress(show: bool, len: usize, doing: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    let template = format!("memlint: {doing} {{bar:30}} {{pos}}/{{len}} files, {{eta}} left");
    let style =
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// A bar drawn once a scan reports that it reads many files (see
/// [`crate::engine::scan::Progress`]).
pub(crate) struct Bar {
    doing: &'static str,
    bar: std::sync::OnceLock<indicatif::ProgressBar>,
}

impl Bar {
    /// A bar that will say what is `doing` ("indexing").
    pub(crate) fn new(doing: &'static str) -> Bar {
        Bar {
            doing,
            bar: std::sync::OnceLock::new(),
        }
    }

    /// This bar as a scan's progress, when progress is to be `shown`.
    pub(crate) fn shown(&self, shown: bool) -> Option<&dyn crate::engine::scan::Progress> {
        shown.then_some(self as &dyn crate::engine::scan::Progress)
    }
}

impl crate::engine::scan::Progress for Bar {
    fn start(&self, total: usize) {
        let _ = self.bar.set(progress(true, total, self.doing));
    }

    fn advance(&self) {
        if let Some(bar) = self.bar.get() {
            bar.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}
