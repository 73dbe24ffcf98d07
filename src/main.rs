use clap::Parser;
use std::process::ExitCode;

// The index and the linter allocate many small strings from several
// threads; mimalloc does that markedly faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
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
        eprintln!("memlint: internal error: {msg}{at}; please report this bug");
        std::process::exit(2);
    }));
    let cli = memlint::cli::Cli::parse();
    memlint::cli::run(cli)
}
