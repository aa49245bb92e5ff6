//! The workbench's HTTP layer: the page, its assets, and the JSON API the
//! page uses (documented in docs/usage.md, usable from scripts).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use anyhow::Context as _;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, State as Shared};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Json, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;

use super::ServeOptions;
use super::analyses::{Ask, Asked};
use super::edit::{self, Edit};
use super::files::{Refusal, ScenarioFolder};
use super::inputs::{Inputs, ScenarioTable};
use super::reply::{Body, Rejected, crashed, error, refused, unreadable};
use super::runs::{Answered, Busy, MAX_QUEUED, Run, Runs};
use crate::report::kit::command_line::CommandLine;
use crate::scenario::{self, Resolved, Scenario};

/// Largest request body accepted (1 MiB); larger ones get 413.
pub const MAX_BODY: usize = 1 << 20;

/// The longest name a posted scenario may give (bytes).
const MAX_NAME: usize = 255;

/// The name a posted scenario is checked and run under when it gives none.
const POSTED: &str = "workbench.toml";

const PAGE: &str = include_str!("../../assets/workbench.html");
const SCRIPT: &str = include_str!("../../assets/workbench.js");
const STYLES: &str = include_str!("../../assets/report.css");
const PAGE_STYLES: &str = include_str!("../../assets/workbench.css");
const FORM: &str = include_str!("../../assets/form.js");
const DESIGNER: &str = include_str!("../../assets/designer.js");
const GRID: &str = include_str!("../../assets/grid.js");
const QUESTIONS: &str = include_str!("../../assets/questions.js");
const DOM: &str = include_str!("../../assets/dom.js");
/// The charts' font, so the page looks the same with no font installed.
const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// What every handler shares.
pub struct State {
    scenarios: ScenarioFolder,
    runs: Runs,
    max_trials: u64,
}

impl State {
    /// Where the runs' files go (removed when the server stops).
    pub fn files(&self) -> &Path {
        self.runs.files()
    }

    /// The state of a server started with `options`.
    pub fn new(options: &ServeOptions) -> anyhow::Result<State> {
        remove_files_of_stopped_servers();
        // A new folder with an unpredictable name, made (never reused,
        // never through a link someone planted) readable by us alone.
        use std::os::unix::fs::PermissionsExt as _;
        let files = tempfile::Builder::new()
            .prefix(&format!("{FILES_PREFIX}{}-", std::process::id()))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .context("cannot make the server's folder for its runs' files")?
            .keep();
        crate::report::kit::output_dir::in_progress(&files);
        Ok(State {
            scenarios: ScenarioFolder::new(&options.scenarios),
            runs: Runs::new(options.max_runs, files),
            max_trials: options.max_trials,
        })
    }
}

/// The runs' folder of server PID in the temporary folder: this, the PID,
/// `-` and random characters.
const FILES_PREFIX: &str = "warcrunch-serve-";

/// Removes the runs' folders of servers no longer running (killed before
/// they could remove their own).
fn remove_files_of_stopped_servers() {
    let Ok(listing) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(FILES_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        // Only a folder, never what a link points to.
        let folder = entry.file_type().is_ok_and(|t| t.is_dir());
        if folder && pid.is_some_and(|pid| !crate::report::kit::output_dir::process_is_running(pid))
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The page's files, compiled in: path, content, media type.
const ASSETS: [(&str, &[u8], &str); 9] = [
    ("/assets/grid.js", GRID.as_bytes(), "text/javascript"),
    ("/assets/workbench.js", SCRIPT.as_bytes(), "text/javascript"),
    ("/assets/form.js", FORM.as_bytes(), "text/javascript"),
    ("/assets/dom.js", DOM.as_bytes(), "text/javascript"),
    (
        "/assets/designer.js",
        DESIGNER.as_bytes(),
        "text/javascript",
    ),
    (
        "/assets/questions.js",
        QUESTIONS.as_bytes(),
        "text/javascript",
    ),
    ("/assets/report.css", STYLES.as_bytes(), "text/css"),
    ("/assets/workbench.css", PAGE_STYLES.as_bytes(), "text/css"),
    ("/assets/DejaVuSans.ttf", FONT, "font/ttf"),
];

/// The routes, behind the guard that decides whom they answer.
pub fn router(state: Arc<State>, guard: super::guard::Guard) -> Router {
    let mut router = Router::new().route("/", get(|| async { Html(PAGE) }));
    for (path, content, kind) in ASSETS {
        router = router.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, kind)], content).into_response() }),
        );
    }
    router
        .route("/api/scenarios", get(list_scenarios))
        .route("/api/scenarios/{*name}", get(read_scenario))
        .route("/api/schema/{name}", get(schema))
        .route("/api/check", axum::routing::post(check))
        .route("/api/document", axum::routing::post(read_document))
        .route("/api/edit", axum::routing::post(edit_document))
        .route(
            "/api/cards",
            axum::routing::post(super::designer::analyse_deck),
        )
        .route("/api/tables", axum::routing::post(read_table))
        .route("/api/runs", axum::routing::post(start_run))
        .route("/api/analyses", axum::routing::post(start_analysis))
        .route("/api/choices", axum::routing::post(question_choices))
        .route("/api/usage", axum::routing::post(cell_usage))
        .route("/api/runs/{id}", get(run_state).delete(stop_run))
        .route("/api/runs/{id}/events", get(run_events))
        .route("/api/runs/{id}/files/{name}", get(run_file))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard),
            super::guard::guard,
        ))
        .with_state(state)
}

async fn list_scenarios(Shared(state): Shared<Arc<State>>) -> Response {
    Json(json!({
        "scenarios": state.scenarios.list(),
        "exact_odds": crate::systems::registry::exact_odds(),
    }))
    .into_response()
}

async fn read_scenario(
    Shared(state): Shared<Arc<State>>,
    UrlPath(name): UrlPath<String>,
) -> Response {
    match state.scenarios.read(&name) {
        Ok(text) => ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response(),
        Err(r) => refused(r),
    }
}

async fn schema(UrlPath(name): UrlPath<String>) -> Response {
    match crate::scenario::schema::find(&name) {
        Ok(entry) => Json(entry.schema()).into_response(),
        Err(e) => error(StatusCode::NOT_FOUND, format!("{e:#}")),
    }
}

/// A posted scenario: its text, and optionally the name it would have in
/// the scenarios folder (table paths resolve from that name's folder).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Posted {
    toml: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    trials: Option<u64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    precision: Option<f64>,
    /// A finished run whose outcomes each of this run's are shown beside.
    #[serde(default)]
    baseline: Option<u64>,
    /// Tables edited on the page, by name: used instead of the ones the
    /// scenario names, as `--table NAME=FILE` would be.
    #[serde(default)]
    tables: BTreeMap<String, String>,
}

/// One error as the page shows it: the key and line the CLI's message
/// names, and the message with the server's folder taken out.
fn invalid(message: &str, origin: &str, shown_as: &str, text: &str) -> Rejected {
    let message = message.replace(origin, shown_as);
    // `file:LINE:COLUMN: …` from the checks, `… at line LINE, column …` from TOML.
    let line = message
        .strip_prefix(shown_as)
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse::<u64>().ok())
        .or_else(|| super::reply::line_named(&message));
    let key = message.split('`').nth(1).map(str::to_owned);
    let path = line
        .and_then(|l| edit::path_at_line(text, l))
        .or_else(|| key.as_deref().and_then(edit::path_of_key));
    Rejected::Invalid(vec![
        json!({ "key": key, "line": line, "path": path, "message": message }),
    ])
}

/// Loads a posted scenario the way the CLI loads a file, under its name in
/// the scenarios folder, with trials and seed from the request.
/// Also returns the table files its `[tables]` names, as found.
fn load(state: &State, posted: &Posted) -> Result<(Scenario, Vec<TableFile>), Rejected> {
    let name = posted.name.as_deref().unwrap_or(POSTED);
    if name.len() > MAX_NAME {
        return Err(Rejected::Refused(Refusal {
            status: 422,
            message: format!("`name` is {} bytes long; at most {MAX_NAME}", name.len()),
        }));
    }
    let plain = Path::new(name)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    if !plain || name.contains('\\') || !name.ends_with(".toml") {
        return Err(Rejected::Refused(Refusal {
            status: 403,
            message: format!(
                "name `{name}`: a .toml path inside the scenarios folder, e.g. gurps/my_battle.toml"
            ),
        }));
    }
    let path = state.scenarios.root.join(name);
    let origin = path.display().to_string();
    let doc: toml::Table = toml::from_str(&posted.toml).map_err(|e| {
        invalid(
            &crate::tables::validate::toml_error(&origin, e).to_string(),
            &origin,
            name,
            &posted.toml,
        )
    })?;
    let tables = check_table_paths(state, &doc, name).map_err(Rejected::Refused)?;
    // The loader reads the `[tables]` files as checked (copies of what was
    // read through the checked handle), then the page's own tables.
    let mut texts: Vec<(String, String)> = tables
        .iter()
        .map(|t| (t.table.clone(), t.text.clone()))
        .collect();
    texts.extend(posted.tables.iter().map(|(k, v)| (k.clone(), v.clone())));
    let edited = write_tables(state, &texts)?;
    let overrides: Vec<(String, String)> = edited
        .iter()
        .map(|(table, file)| (table.clone(), file.display().to_string()))
        .collect();
    let edits: Vec<scenario::Edit> = overrides.iter().map(scenario::Edit::table).collect();
    let loaded = scenario::load_edited(&path, &posted.toml, &edits);
    for (_, file) in &edited {
        let _ = std::fs::remove_file(file);
    }
    let mut s = loaded.map_err(|e| {
        let mut message = format!("{e:#}");
        // An error in a `[tables]` file names that file.
        for (t, (_, copy)) in tables.iter().zip(&edited) {
            message = message.replace(&copy.display().to_string(), &t.path.display().to_string());
        }
        // An error in a table the page sent is shown beside its cell.
        for (table, file) in edited.iter().skip(tables.len()) {
            let file = file.display().to_string();
            if message.contains(&file) {
                return Rejected::Invalid(vec![table_error(
                    &message,
                    table,
                    &file,
                    &posted.tables[table],
                )]);
            }
        }
        invalid(&message, &origin, name, &posted.toml)
    })?;
    let max = state.max_trials;
    let trials = match (posted.trials, posted.precision) {
        (Some(t), _) if t == 0 || t > max => {
            return Err(Rejected::Invalid(vec![json!({
                "key": "trials",
                "line": null,
                "message": format!("`trials` = {t} is out of range; allowed: 1 to {max} (this server's cap)"),
            })]));
        }
        (Some(t), _) => Some(t),
        (None, Some(_)) => Some(max),
        // The scenario's own number, held to the cap.
        (None, None) => Some(s.trials.min(max)),
    };
    if let Some(h) = posted.precision
        && let Err(e) = crate::tables::validate::check_precision(h)
    {
        return Err(Rejected::Invalid(vec![json!({
            "key": "precision",
            "line": null,
            "message": format!("`precision` = {e}"),
        })]));
    }
    s.override_settings(trials, posted.seed)
        .map_err(|e| invalid(&format!("{e:#}"), &origin, name, &posted.toml))?;
    Ok((s, tables))
}

/// Names the tables posted by the page get, one folder per request.
static EDITED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Writes each table the page posted into the server's own folder (never
/// the scenarios folder), for the loader to read as `--table NAME=FILE`.
fn write_tables(
    state: &State,
    tables: &[(String, String)],
) -> Result<Vec<(String, PathBuf)>, Rejected> {
    if tables.is_empty() {
        return Ok(Vec::new());
    }
    let known = crate::tables::kinds();
    let folder = state
        .files()
        .join(format!("tables-{}", EDITED.fetch_add(1, Ordering::SeqCst)));
    let failed = |e: std::io::Error| {
        Rejected::Refused(Refusal {
            status: 500,
            message: format!("cannot write the page's tables: {e}"),
        })
    };
    std::fs::create_dir_all(&folder).map_err(failed)?;
    let mut written = Vec::new();
    for (table, text) in tables {
        if !known.contains(&table.as_str()) {
            return Err(Rejected::Invalid(vec![json!({
                "key": format!("tables.{table}"),
                "line": null,
                "message": format!("`tables` names no table `{table}`; allowed: {}", known.join(", ")),
            })]));
        }
        let file = folder.join(format!("{table}.{}.toml", written.len()));
        std::fs::write(&file, text).map_err(failed)?;
        written.push((table.clone(), file));
    }
    Ok(written)
}

/// A table for the grid: its name, and its text (the built-in one if none).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableText {
    name: String,
    #[serde(default)]
    toml: Option<String>,
}

/// A table laid out as typed cells, with the checks a scenario's table
/// gets: each error beside the cell it names (a 422 only for text that is
/// not TOML, or a table name that does not exist).
async fn read_table(Shared(state): Shared<Arc<State>>, Body(posted): Body<TableText>) -> Response {
    let answer = tokio::task::spawn_blocking(move || {
        let Some(builtin) = crate::systems::built_ins()
            .into_iter()
            .find(|t| t.name == posted.name)
        else {
            return error(
                StatusCode::NOT_FOUND,
                format!(
                    "no table `{}`; allowed: {}",
                    posted.name,
                    crate::tables::kinds().join(", ")
                ),
            );
        };
        let text = posted.toml.unwrap_or_else(|| builtin.text.to_owned());
        let schema = match crate::scenario::schema::find(builtin.name) {
            Ok(entry) => entry.schema(),
            Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}")),
        };
        let grid = match super::grid::grid(builtin.name, &text, &schema) {
            Ok(grid) => grid,
            Err(message) => return unreadable(message, &text),
        };
        let errors = match write_tables(&state, &[(posted.name.clone(), text.clone())]) {
            Err(rejected) => return rejected.into_response(),
            Ok(written) => {
                let (_, file) = &written[0];
                let origin = file.display().to_string();
                let checked = crate::scenario::bundled::check_table(builtin.name, &origin);
                let _ = std::fs::remove_file(file);
                match checked {
                    Ok(_) => Vec::new(),
                    Err(e) => vec![table_error(&format!("{e:#}"), builtin.name, &origin, &text)],
                }
            }
        };
        Json(super::grid::reply(&grid, &text, errors)).into_response()
    })
    .await;
    answer.unwrap_or_else(|e| crashed("the table", e))
}

/// An error in table `name` (read from `origin`) as the grid shows it: the
/// message without the option and the server's folder, and the cell it is
/// about (by the line it names, else the key it quotes).
fn table_error(message: &str, name: &str, origin: &str, text: &str) -> serde_json::Value {
    let message = message
        .replace(&format!("--table {name}={origin}: "), "")
        .replace(&format!("{origin}: "), "")
        .replace(origin, &format!("the {name} table"));
    let line = super::reply::line_named(&message);
    let path = line
        .and_then(|l| edit::path_at_line(text, l))
        .or_else(|| super::grid::cell_named(&message, text));
    json!({ "table": name, "line": line, "path": path, "message": message })
}

/// A table file a posted scenario names, as found in the scenarios folder.
struct TableFile {
    /// The table's name.
    table: String,
    /// Where the file is.
    path: PathBuf,
    /// Named as `[tables.NAME] file`, the table whose cells are set.
    edited: bool,
    /// Its text, read through the handle whose path was checked.
    text: String,
}

/// A posted scenario's `[tables]` files (`NAME = "file"` or `[tables.NAME]
/// file = "file"`) must stay in the scenarios folder: resolved from the
/// scenario's folder, never climbing out of the tree. Returns each table's
/// file as found there, and its text as read then.
fn check_table_paths(
    state: &State,
    doc: &toml::Table,
    name: &str,
) -> Result<Vec<TableFile>, Refusal> {
    let Some(toml::Value::Table(tables)) = doc.get("tables") else {
        return Ok(Vec::new());
    };
    let folder = Path::new(name).parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    for (table, value) in tables {
        let (path, edited, shown) = match value {
            toml::Value::String(path) => (path, false, format!("[tables] {table}")),
            toml::Value::Table(edited) => match edited.get("file") {
                Some(toml::Value::String(path)) if path != crate::tables::BUILT_IN => {
                    (path, true, format!("[tables.{table}] file"))
                }
                _ => continue,
            },
            // The loader refuses any other value, naming what is allowed.
            _ => continue,
        };
        let mut inside = PathBuf::new();
        for part in folder.join(path).components() {
            match part {
                Component::Normal(p) => inside.push(p),
                Component::CurDir => {}
                Component::ParentDir if inside.pop() => {}
                _ => {
                    return Err(Refusal {
                        status: 403,
                        message: format!(
                            "{shown} = \"{path}\": only table files inside the scenarios folder can be read"
                        ),
                    });
                }
            }
        }
        let real = state
            .scenarios
            .resolve(&inside.to_string_lossy())
            .map_err(|r| Refusal {
                status: r.status,
                message: format!("{shown} = \"{path}\": {}", r.message),
            })?;
        let text = state
            .scenarios
            .read_resolved(&real, &format!("{shown} = \"{path}\""))?;
        found.push(TableFile {
            table: table.clone(),
            path: real,
            edited,
            text,
        });
    }
    Ok(found)
}

async fn check(Shared(state): Shared<Arc<State>>, Body(posted): Body<Posted>) -> Response {
    let loaded = tokio::task::spawn_blocking(move || {
        load(&state, &posted).map(|(s, _)| {
            json!({
                // The page's fields hold to the server's cap.
                "max_trials": state.max_trials,
                "name": s.name,
                "system": s.battle.system(),
                "system_title": crate::systems::registry::title(s.battle.system()),
                "trials": s.trials,
                "seed": s.seed,
                "description": s.battle.describe(),
                "stand_in_rules": s.battle.stand_in_rules(),
                "tables": s.battle.tables(),
            })
        })
    })
    .await;
    match loaded {
        Ok(Ok(normalized)) => Json(normalized).into_response(),
        Ok(Err(rejected)) => rejected.into_response(),
        Err(e) => crashed("the check", e),
    }
}

/// A scenario's text, for the form.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    toml: String,
}

/// A scenario's text and the form's changes to it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edits {
    toml: String,
    edits: Vec<Edit>,
}

/// The file as JSON and the schema its form is built from (named by its
/// `system`; a deck table has none and gets `cards`).
fn form_of(text: &str) -> Response {
    match edit::document(text) {
        Ok(document) => {
            let schema = match document.get("system").and_then(|s| s.as_str()) {
                Some(system) => crate::scenario::schema::find(system)
                    .ok()
                    .map(|_| system.to_owned()),
                None if document.get("cards").is_some() => Some("cards".to_owned()),
                None => None,
            };
            // The page's first questions for this battle, as its system words them.
            let examples = crate::systems::registry::example_questions(&document);
            Json(json!({ "toml": text, "schema": schema, "document": document, "examples": examples }))
                .into_response()
        }
        Err(message) => unreadable(message, text),
    }
}

async fn read_document(Body(posted): Body<Text>) -> Response {
    form_of(&posted.toml)
}

async fn edit_document(Body(posted): Body<Edits>) -> Response {
    match edit::apply(&posted.toml, &posted.edits) {
        Ok(text) => form_of(&text),
        Err(message) => unreadable(message, &posted.toml),
    }
}

async fn start_run(Shared(state): Shared<Arc<State>>, Body(posted): Body<Posted>) -> Response {
    let for_load = state.clone();
    let loaded = tokio::task::spawn_blocking(move || {
        let loaded = load(&for_load, &posted)?;
        let baseline = match posted.baseline {
            None => None,
            Some(id) => Some(
                for_load
                    .runs
                    .get(id)
                    .and_then(|run| run.counts.get().cloned())
                    .ok_or_else(|| {
                        Rejected::Refused(Refusal {
                            status: 422,
                            message: format!(
                                "`baseline` = {id}: no finished run {id} to compare with (a run is kept until {} newer ones have ended)",
                                super::runs::KEPT
                            ),
                        })
                    })?,
            ),
        };
        let (s, found) = loaded;
        let inputs = inputs_of(
            &posted.toml,
            posted.name.as_deref().unwrap_or(POSTED),
            &found,
            &posted.tables,
        );
        Ok::<_, Rejected>((s, posted.precision, inputs, baseline))
    })
    .await;
    match loaded {
        Ok(Ok((s, precision, inputs, baseline))) => {
            // The command that runs it again from a folder of its inputs.
            let tables: Vec<String> = inputs
                .tables
                .iter()
                .map(|(table, file)| format!("{table}={file}"))
                .collect();
            let line = CommandLine::new("run")
                .arg(inputs.scenario())
                .options("table", &tables);
            let line = match precision {
                Some(h) => line.option("precision", h).option("max-trials", s.trials),
                None => line.option("trials", s.trials),
            }
            .option("seed", s.seed);
            started(
                &state.runs,
                state.runs.start(s, precision, (line, inputs), baseline),
            )
        }
        Ok(Err(rejected)) => rejected.into_response(),
        Err(e) => crashed("the check", e),
    }
}

/// A sweep, solve or sensitivity asked from the page: the scenario and the
/// typed question (`"ask": {"sweep": {"set": ["sides.A.strategy=10..14"]}}`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    toml: String,
    #[serde(default)]
    name: Option<String>,
    ask: Ask,
    /// Tables edited on the page, used by the question as by a run.
    #[serde(default)]
    tables: BTreeMap<String, String>,
}

/// A question's scenario and tables as written for the command.
struct Written {
    /// Its folder (`input-N` among the server's files), removed after.
    input: PathBuf,
    /// The scenario, its `[tables]` files beside it.
    file: PathBuf,
    /// Each table the page sent: its name and file.
    tables: Vec<(String, PathBuf)>,
    /// The files written, to write again beside the answer.
    inputs: Inputs,
    /// The scenario's battles, held to the server's cap.
    trials: u64,
    /// The battle's system, whose words the answer takes.
    system: &'static str,
    /// The scenario as written, read with the page's tables: what the
    /// question is asked of.
    resolved: Resolved,
}

/// The files of a posted battle that [`load`] checked.
fn inputs_of(
    toml: &str,
    name: &str,
    found: &[TableFile],
    page: &BTreeMap<String, String>,
) -> Inputs {
    let found: Vec<ScenarioTable> = found
        .iter()
        .map(|t| ScenarioTable {
            table: t.table.clone(),
            edited: t.edited,
            text: t.text.clone(),
        })
        .collect();
    Inputs::new(toml, name, &found, page)
}

/// Checks a question's scenario and tables as a run's, and writes them
/// into a fresh `input-N` folder for the library call that answers it.
fn write_question(
    state: &State,
    toml: &str,
    name: Option<&str>,
    tables: &BTreeMap<String, String>,
) -> Result<Written, Rejected> {
    let posted = Posted {
        toml: toml.to_owned(),
        name: name.map(str::to_owned),
        trials: None,
        seed: None,
        precision: None,
        baseline: None,
        tables: tables.clone(),
    };
    let (loaded, found) = load(state, &posted)?;
    let inputs = inputs_of(toml, name.unwrap_or(POSTED), &found, tables);
    let input = state
        .files()
        .join(format!("input-{}", INPUTS.fetch_add(1, Ordering::SeqCst)));
    std::fs::create_dir_all(&input)
        .and_then(|()| inputs.write_into(&input))
        .map_err(|e| {
            Rejected::Refused(Refusal {
                status: 500,
                message: format!("cannot write the scenario for the question: {e}"),
            })
        })?;
    let file = input.join(inputs.scenario());
    let tables: Vec<(String, PathBuf)> = inputs
        .tables
        .iter()
        .map(|(table, file)| (table.clone(), input.join(file)))
        .collect();
    let given: Vec<String> = tables
        .iter()
        .map(|(table, path)| format!("{table}={}", path.display()))
        .collect();
    let resolved = Resolved::from_text(&file, inputs.scenario_text(), &given).map_err(|e| {
        let _ = std::fs::remove_dir_all(&input);
        invalid(
            &format!("{e:#}"),
            &file.display().to_string(),
            name.unwrap_or(POSTED),
            toml,
        )
    })?;
    Ok(Written {
        file,
        tables,
        input,
        inputs,
        trials: loaded.trials,
        system: loaded.battle.system(),
        resolved,
    })
}

/// Posted scenarios of questions are written under `input-N`.
static INPUTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The reply to a queued run: its id and number, or 429 when too many
/// wait.
fn started(runs: &Runs, queued: Result<u64, Busy>) -> Response {
    started_as(runs, queued, json!({}))
}

/// [`started`], its answer carrying `terms` beside the id (a question's
/// battles and target in words).
fn started_as(runs: &Runs, queued: Result<u64, Busy>, mut terms: serde_json::Value) -> Response {
    match queued {
        Ok(id) => {
            terms["id"] = json!(id);
            terms["number"] = json!(runs.get(id).map(|run| run.number()));
            Json(terms).into_response()
        }
        Err(Busy { waiting }) => busy(waiting),
    }
}

/// The 429 for work refused because [`MAX_QUEUED`] runs wait already.
fn busy(waiting: usize) -> Response {
    let mut reply = error(
        StatusCode::TOO_MANY_REQUESTS,
        format!(
            "{waiting} runs are waiting for a free slot already (at most {MAX_QUEUED}); \
             try again once one has started, or stop one"
        ),
    );
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
    reply
}

/// Checks the scenario as a run's, writes it (with its table paths made
/// absolute) for the command, and queues the command.
async fn start_analysis(Shared(state): Shared<Arc<State>>, Body(q): Body<Question>) -> Response {
    let for_load = state.clone();
    let prepared = tokio::task::spawn_blocking(move || {
        // The question is checked now (a 4xx), answered later.
        if matches!(q.ask, Ask::Compare(_)) && q.tables.is_empty() {
            return Err(Rejected::Refused(Refusal {
                status: 422,
                message: "`compare` sets the battle with its tables as written beside the battle with the page's edited tables: send them in `tables` (`{\"survival\": \"TOML\"}`)".to_owned(),
            }));
        }
        let written = write_question(&for_load, &q.toml, q.name.as_deref(), &q.tables)?;
        // A sensitivity's moves, prepared once: counted against the cap
        // now, fought later. A refusal names the battle and the page's
        // tables, not the files the server wrote them to.
        let mut sensitivity = None;
        let scenarios_fought = |request: &crate::questions::sensitivity::plan::SensitivityRequest| {
            let prepared = crate::analysis::sensitivity::prepare(&written.resolved, request)
                .map_err(|e| {
                    let mut message = format!("{e:#}").replace(
                        &written.file.display().to_string(),
                        q.name.as_deref().unwrap_or(POSTED),
                    );
                    for (name, file) in &written.tables {
                        message = message.replace(
                            &file.display().to_string(),
                            &format!("the page's {name} table"),
                        );
                    }
                    anyhow::anyhow!(message)
                })?;
            let fought = prepared.scenarios_fought();
            sensitivity = Some(prepared);
            Ok(fought)
        };
        let refused = |refusal| {
            let _ = std::fs::remove_dir_all(&written.input);
            Rejected::Refused(refusal)
        };
        let ask = q.ask.within(for_load.max_trials, written.trials, scenarios_fought).map_err(refused)?;
        if let (Ask::Sensitivity(request), Some(prepared)) = (&ask, &mut sensitivity) {
            prepared.set_trials(request.trials).map_err(|e| {
                refused(Refusal {
                    status: 422,
                    message: format!("{e:#}"),
                })
            })?;
        }
        let terms = json!({
            "battles": ask.battles_in_words(written.trials),
            "battles_each": ask.battles_each(written.trials),
            "target_words": ask.target_in_words(written.system),
            "plans_ahead": ask.plans_ahead(),
        });
        let asked = Asked {
            ask,
            input: written.input,
            file: written.file,
            name: q.name.as_deref().unwrap_or(POSTED).to_owned(),
            tables: written.tables,
            inputs: written.inputs,
            resolved: written.resolved,
            sensitivity,
        };
        Ok::<_, Rejected>((asked, terms))
    })
    .await;
    match prepared {
        Ok(Ok((asked, terms))) => started_as(
            &state.runs,
            state
                .runs
                .start_with(0, state.max_trials, move |run| asked.answer(run)),
            terms,
        ),
        Ok(Err(rejected)) => rejected.into_response(),
        Err(e) => crashed("the check", e),
    }
}

/// A scenario (and the page's tables) for the question forms' pickers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asking {
    toml: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tables: BTreeMap<String, String>,
}

/// What a sweep, solve or sensitivity of the posted battle can move and
/// aim at: its settings and table cells by their `--set` paths, and its
/// outcomes by subject, metric and values, as the commands name them.
async fn question_choices(
    Shared(state): Shared<Arc<State>>,
    Body(asked): Body<Asking>,
) -> Response {
    let answer = tokio::task::spawn_blocking(move || {
        let name = asked.name.as_deref().unwrap_or(POSTED);
        let Written {
            input,
            file,
            resolved,
            ..
        } = write_question(&state, &asked.toml, asked.name.as_deref(), &asked.tables)?;
        let choices = crate::analysis::sensitivity::choices(&resolved);
        let _ = std::fs::remove_dir_all(&input);
        let choices = choices.map_err(|e| {
            invalid(
                &format!("{e:#}"),
                &file.display().to_string(),
                name,
                &asked.toml,
            )
        })?;
        // The scenario's schema, for each setting's allowed range.
        let schema = toml::from_str::<toml::Table>(&asked.toml)
            .ok()
            .and_then(|doc| doc.get("system")?.as_str().map(str::to_owned))
            .and_then(|system| crate::scenario::schema::find(&system).ok())
            .map(|entry| entry.schema())
            .unwrap_or_default();
        let knob = |k: &crate::questions::sensitivity::Knob| {
            let (minimum, maximum) = match k.cell {
                Some(_) => (None, None),
                None => super::grid::range_at(&schema, &k.path),
            };
            let kind = match &k.value {
                toml::Value::Integer(_) => "integer",
                toml::Value::Float(_) => "number",
                toml::Value::Boolean(_) => "flag",
                toml::Value::Array(_) => "list",
                _ => "word",
            };
            json!({
                "path": k.name(),
                "title": crate::report::kit::words::setting(&k.path.join(".")),
                "value": k.value,
                "kind": kind,
                "choices": k.choices,
                "cell": k.cell,
                "minimum": minimum,
                "maximum": maximum,
            })
        };
        // An outcome as the target names it, and in the report's words.
        let outcome = |o: &crate::analysis::sensitivity::Outcome| {
            json!({
                "subject": o.subject,
                "metric": o.metric,
                "title": crate::report::kit::words::title(choices.system, &o.subject, &o.metric),
                "values": o.values,
                "numeric": o.numeric,
            })
        };
        Ok::<_, Rejected>(json!({
            "settings": choices.settings.iter().map(knob).collect::<Vec<_>>(),
            "cells": choices.cells.iter().map(knob).collect::<Vec<_>>(),
            "outcomes": choices.outcomes.iter().map(outcome).collect::<Vec<_>>(),
        }))
    })
    .await;
    match answer {
        Ok(Ok(body)) => Json(body).into_response(),
        Ok(Err(rejected)) => rejected.into_response(),
        Err(e) => crashed("the choices", e),
    }
}

/// Battles a usage count fights when the request names none.
const USAGE_TRIALS: u64 = 20_000;

/// How often the posted battle reads each table cell: its battles fought by
/// the book (as `warcrunch run --usage` counts them; 20,000 unless
/// `trials` says), each cell with the share of battles that read it. The
/// count is work like a run's: it waits in the runs' queue (429 when that
/// is full), holds a slot, and stops on a DELETE of its id, at shutdown,
/// or when its client leaves (409 when stopped).
async fn cell_usage(Shared(state): Shared<Arc<State>>, Body(posted): Body<Posted>) -> Response {
    let for_load = state.clone();
    let loaded = tokio::task::spawn_blocking(move || {
        let posted = Posted {
            trials: Some(posted.trials.unwrap_or(USAGE_TRIALS)),
            ..posted
        };
        load(&for_load, &posted).map(|(s, _)| s)
    })
    .await;
    let s = match loaded {
        Ok(Ok(s)) => s,
        Ok(Err(rejected)) => return rejected.into_response(),
        Err(e) => return crashed("the usage count", e),
    };
    let (trials, seed) = (s.trials, s.seed);
    let counted = state.runs.answer(trials, move |_| {
        let plan = crate::analysis::runner::Plan {
            threads: 0,
            progress: false,
            shard: crate::engine::Shard::WHOLE,
            precision: None,
        };
        crate::analysis::runner::count_usage(&s, &plan)
    });
    let tally = match counted.await {
        Err(Busy { waiting }) => return busy(waiting),
        Ok((_, Answered::Done(tally))) => tally,
        Ok((id, Answered::Stopped)) => {
            return error(
                StatusCode::CONFLICT,
                format!("the usage count (run {id}) was stopped before its end"),
            );
        }
        Ok((_, Answered::Failed(e))) => {
            return Rejected::Refused(Refusal {
                status: 422,
                message: format!("{e:#}"),
            })
            .into_response();
        }
    };
    let cells: Vec<serde_json::Value> = tally
        .cells()
        .iter()
        .map(|c| {
            let path = [c.cell.row.as_str(), c.cell.column.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(".");
            json!({
                "sweep": format!("tables.{}.{path}", c.cell.table),
                "table": c.cell.table,
                "reads": c.reads,
                "battles": c.battles,
                "share": c.battles as f64 / trials as f64,
            })
        })
        .collect();
    Json(json!({ "battles": trials, "seed": seed, "cells": cells })).into_response()
}

/// The answer for a run id the server does not know.
fn no_run(id: u64) -> Response {
    error(
        StatusCode::NOT_FOUND,
        format!(
            "no run {id} (this server keeps the last {} ended runs)",
            super::runs::KEPT
        ),
    )
}

/// The JSON 400 for an address whose run id is not one.
fn not_a_run_id(text: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        format!(
            "`{}` is not a run id; allowed: a run's number, as POST /api/runs answered it",
            text.chars().take(40).collect::<String>()
        ),
    )
}

async fn run_state(Shared(state): Shared<Arc<State>>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return not_a_run_id(&id);
    };
    match state.runs.get(id) {
        Some(run) => Json(run.state.borrow().clone()).into_response(),
        None => no_run(id),
    }
}

async fn stop_run(Shared(state): Shared<Arc<State>>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return not_a_run_id(&id);
    };
    match state.runs.get(id) {
        Some(run) => {
            run.stop();
            Json(json!({ "id": id, "stopping": !run.state.borrow().status.ended() }))
                .into_response()
        }
        None => no_run(id),
    }
}

/// Stops a run when the page that follows it goes away.
struct CancelOnDrop(Arc<Run>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.0.state.borrow().status.ended() {
            self.0.stop();
        }
    }
}

async fn run_events(Shared(state): Shared<Arc<State>>, UrlPath(id): UrlPath<String>) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return not_a_run_id(&id);
    };
    let Some(run) = state.runs.get(id) else {
        return no_run(id);
    };
    let receiver = run.state.subscribe();
    let guard = CancelOnDrop(run);
    // The state now, then after each change, until the run ends.
    let stream = futures_util::stream::unfold(
        (receiver, guard, true, false),
        |(mut receiver, guard, first, ended)| async move {
            if ended || (!first && receiver.changed().await.is_err()) {
                return None;
            }
            let snapshot = receiver.borrow_and_update().clone();
            let ended = snapshot.status.ended();
            let event = Event::default()
                .event(if ended { "end" } else { "update" })
                .json_data(&snapshot)
                .unwrap_or_default();
            Some((Ok::<_, Infallible>(event), (receiver, guard, false, ended)))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn run_file(
    Shared(state): Shared<Arc<State>>,
    UrlPath((id, name)): UrlPath<(String, String)>,
) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return not_a_run_id(&id);
    };
    let Some(run) = state.runs.get(id) else {
        return no_run(id);
    };
    let listed = run.state.borrow().files.contains(&name);
    if !listed {
        return error(
            StatusCode::NOT_FOUND,
            format!("run {id} has no file `{name}` (yet); its files are listed in its state"),
        );
    }
    let kind = match Path::new(&name).extension().and_then(|e| e.to_str()) {
        Some("csv") => "text/csv; charset=utf-8",
        Some("json") => "application/json",
        Some("html") => "text/html; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    match tokio::fs::read(run.dir.join(&name)).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, kind)], bytes).into_response(),
        Err(e) => error(StatusCode::NOT_FOUND, format!("`{name}`: {e}")),
    }
}
