//! `warcrunch serve`: the workbench, a local web page over a small JSON API
//! that runs the same engine, with the same numbers, as the command line.
//!
//! `files` reads scenarios from the scenarios folder and the bundled
//! battles, and nowhere else; `runs` queues, runs, streams and stops simulations off the
//! async runtime; `edit` reads and edits a scenario's TOML for the form;
//! `designer` analyses a Combat Card deck; `grid` lays any rule table
//! out as typed cells; `analyses` runs sweeps, solves
//! and sensitivity analyses asked from the page; `guard` decides whom the
//! server answers (its own names, its own page, the token holder); `reply`
//! shapes its error replies; `api` is the HTTP layer; the
//! page's markup, scripts and the report's stylesheet are compiled in from
//! `assets/`.

mod analyses;
mod api;
mod designer;
mod edit;
mod files;
mod grid;
mod guard;
mod inputs;
mod reply;
mod runs;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

pub use api::MAX_BODY;
pub use runs::{Shown, view};

/// How the workbench is served.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind (127.0.0.1 unless asked).
    pub host: IpAddr,
    /// Port (0: any free port).
    pub port: u16,
    /// The folder scenarios are listed and read from (it may be absent:
    /// then only the bundled battles are offered).
    pub scenarios: PathBuf,
    /// Most battles one run may ask for.
    pub max_trials: u64,
    /// Runs at once; the rest wait in a queue.
    pub max_runs: usize,
    /// The secret every API call must carry, if any.
    pub token: Option<String>,
}

pub use guard::new_token;

/// Serves until Ctrl-C. Announces the address first, so a script that asked
/// for port 0 can read where to connect.
pub fn serve(options: ServeOptions, announce: impl FnOnce(SocketAddr) -> Result<()>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((options.host, options.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", options.host, options.port))?;
        let address = listener.local_addr()?;
        let state = Arc::new(api::State::new(&options)?);
        announce(address)?;
        let files = state.files().to_path_buf();
        let guard = guard::Guard::new(address, options.token.clone());
        let app = api::router(state, guard).layer(
            tower_http::timeout::RequestBodyTimeoutLayer::new(BODY_TIMEOUT),
        );
        accept_until_interrupted(listener, app).await;
        // The runs' files were for this session's page only.
        let _ = std::fs::remove_dir_all(files);
        Ok(())
    })
}

/// How long a client may take to send a request's header.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body (a few kilobytes
/// of TOML, never more than a megabyte).
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves every connection until Ctrl-C (or SIGTERM): a header not sent
/// within [`HEADER_TIMEOUT`] closes its connection. On a stop, listening
/// ends at once and open connections, idle or half-sent, are closed with
/// the runtime.
async fn accept_until_interrupted(listener: tokio::net::TcpListener, app: axum::Router) {
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // A connection that failed before it was accepted is the
                // client's; the next one is served.
                Err(_) => continue,
            },
            () = interrupted() => return,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            // A connection that fails is the client's own.
            let _ = builder
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}

/// Resolves once Ctrl-C has asked every run to stop.
async fn interrupted() {
    while !crate::engine::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
