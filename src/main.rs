use clap::Parser;
use std::process::ExitCode;

// The index and the linter allocate many small strings from several
// threads; mimalloc does that markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    // From the mimalloc library the `mimalloc` crate links.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_t` (v2 and v3).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

fn main() -> ExitCode {
    // memlint is short-lived: memory freed between phases is reused, not
    // handed back to the kernel, which would zero it again on the next
    // fault (on 100k records that was a tenth of the cold check's time).
    // MIMALLOC_PURGE_DELAY in the environment still wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets a plain option; mimalloc reads options on every use.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    // A panic is a bug: report it briefly and exit 2, never with a trace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        memlint::cli::output::err(&format!(
            "memlint: internal error: {msg}{at}; please report this bug\n"
        ));
        std::process::exit(2);
    }));
    let cli = match memlint::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // A usage error quotes the arguments: through the sanitizer, as
        // everything memlint prints (help and version go to stdout as
        // clap writes them).
        // A hook the runtime names wrongly (`hook user-prompt-submit`, a
        // typo, a flag it passes) must not block the agent: a runtime reads
        // exit 2 as "refuse this action". Note it and exit 0.
        Err(e) if e.use_stderr() && memlint::cli::is_hook_call(std::env::args_os().skip(1)) => {
            memlint::cli::output::err(&memlint::cli::hook_usage_note(&e.render().to_string()));
            return ExitCode::SUCCESS;
        }
        Err(e) if e.use_stderr() => {
            memlint::cli::output::err(&e.render().to_string());
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
        Err(e) => e.exit(),
    };
    memlint::cli::run(cli)
}
