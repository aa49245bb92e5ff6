//! The workbench's error replies: a JSON `{"error"}` with its status, and
//! the 422 of posted input the CLI would refuse, with the key and line.

use axum::Json;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::edit;
use super::files::Refusal;

/// A 500 for work that panicked on a blocking thread.
pub(super) fn crashed(what: &str, e: tokio::task::JoinError) -> Response {
    error(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("{what} crashed: {e}"),
    )
}

/// A JSON error with a status (overlong echoes of the input clipped).
pub(super) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    let message = crate::stats::format::clip_echoes(&message.into());
    (status, Json(json!({ "error": message }))).into_response()
}

/// A JSON request body. A body that is too large (413), not JSON (415,
/// 400) or not what the endpoint takes (422, naming the field) is answered
/// `{"error": …}` with that status, as every other refusal.
pub(super) struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Response> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(error(rejection.status(), rejection.body_text())),
        }
    }
}

/// A refusal from the scenarios folder, with its status.
pub(super) fn refused(r: Refusal) -> Response {
    error(
        StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST),
        r.message,
    )
}

/// A refusal of posted input: 422 with the CLI's messages, or another 4xx.
pub(super) enum Rejected {
    Invalid(Vec<serde_json::Value>),
    Refused(Refusal),
}

impl IntoResponse for Rejected {
    fn into_response(self) -> Response {
        match self {
            Rejected::Invalid(errors) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                Json(json!({ "errors": errors })),
            )
                .into_response(),
            Rejected::Refused(r) => refused(r),
        }
    }
}

/// A TOML syntax error as a 422, with its line and the key written there.
pub(super) fn unreadable(message: String, text: &str) -> Response {
    let line = line_named(&message);
    let path = line.and_then(|l| edit::path_at_line(text, l));
    Rejected::Invalid(vec![
        json!({ "key": null, "line": line, "path": path, "message": message }),
    ])
    .into_response()
}

/// The line a TOML parser's message names (`… at line 12, column 3`).
pub(super) fn line_named(message: &str) -> Option<u64> {
    let (_, after) = message.split_once(" line ")?;
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}
