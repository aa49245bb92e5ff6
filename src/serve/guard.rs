//! Whom the workbench answers, checked before any other work:
//!
//! - a request addressed to the server by a name it listens under (its
//!   `Host`), so a web page whose own name was rebound to 127.0.0.1 (DNS
//!   rebinding) is refused;
//! - any request whose `Origin`, when present, is the server itself, and
//!   whose `Sec-Fetch-Site`, when present, is the page's own, so another
//!   site's page cannot start, follow or stop runs (GET included);
//! - with a token (always on a non-loopback address, or asked with
//!   `--token`), every call but the page itself carries it: the page's URL
//!   holds it once, and the server hands it back as a same-site cookie.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::reply::error;

/// The cookie the page's token travels in after the first visit.
const COOKIE: &str = "warcrunch_token";

/// The header a script may carry the token in instead.
pub const TOKEN_HEADER: &str = "x-warcrunch-token";

/// The names the server answers to and the token it requires, if any.
#[derive(Debug, Clone)]
pub struct Guard {
    /// Accepted `Host` values; empty when bound to every address (0.0.0.0),
    /// where the token protects instead.
    hosts: Vec<String>,
    /// The secret every API call must carry, if any.
    token: Option<String>,
}

impl Guard {
    /// The guard of a server listening on `address`, with `token` required
    /// when given.
    pub fn new(address: SocketAddr, token: Option<String>) -> Guard {
        let port = address.port();
        let ip = address.ip();
        let hosts = if ip.is_unspecified() {
            Vec::new()
        } else {
            let given = match ip {
                std::net::IpAddr::V4(v4) => v4.to_string(),
                std::net::IpAddr::V6(v6) => format!("[{v6}]"),
            };
            let mut names = vec![given];
            if ip.is_loopback() {
                names.extend(["127.0.0.1", "localhost", "[::1]"].map(String::from));
            }
            names.dedup();
            let mut hosts: Vec<String> = names.iter().map(|n| format!("{n}:{port}")).collect();
            if port == 80 {
                hosts.extend(names);
            }
            hosts
        };
        Guard { hosts, token }
    }

    /// The token required, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Whether a `Host` value names this server.
    fn host_allowed(&self, host: &str) -> bool {
        self.hosts.is_empty() || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Refuses a request the server must not answer, or says whether the
    /// page's token should be handed back as a cookie.
    fn check(&self, request: &Request) -> Result<bool, Refused> {
        let headers = request.headers();
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !self.host_allowed(host) {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                format!(
                    "this workbench answers requests addressed to {} only, not to `{host}`",
                    self.hosts.join(", ")
                ),
            ));
        }
        // Any request, GET included (a run's events: dropping them stops
        // the run), from another site's page is refused: by its `Origin`
        // where it sends one, by the browser's `Sec-Fetch-Site` where it
        // sends none (an image or a link).
        if let Some(origin) = headers.get(header::ORIGIN)
            && origin.to_str().ok() != Some(&format!("http://{host}"))
        {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                format!(
                    "a request from another site's page (Origin {}) is refused; use the workbench's own page at http://{host}",
                    origin.to_str().unwrap_or("?")
                ),
            ));
        }
        let path = request.uri().path();
        if path.starts_with("/api/")
            && let Some(site) = headers.get("sec-fetch-site")
            && !matches!(site.to_str().unwrap_or(""), "same-origin" | "none")
        {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                format!(
                    "a request made by another site's page (Sec-Fetch-Site {}) is refused; use the workbench's own page at http://{host}",
                    site.to_str().unwrap_or("?")
                ),
            ));
        }
        let Some(token) = &self.token else {
            return Ok(false);
        };
        let in_query = query_token(request.uri().query()).is_some_and(|t| same(&t, token));
        if path == "/" || path.starts_with("/assets/") {
            return Ok(path == "/" && in_query);
        }
        if in_query || carried(headers, token) {
            Ok(false)
        } else {
            Err(Refused(
                StatusCode::UNAUTHORIZED,
                "this workbench needs its token: open the address it printed at start-up \
                 (…/?token=…), or send the token in the x-warcrunch-token header"
                    .to_owned(),
            ))
        }
    }
}

/// A refusal: its status and the reason.
#[derive(Debug)]
struct Refused(StatusCode, String);

/// The middleware: refuses what [`Guard::check`] refuses, and sets the
/// token cookie when the page was opened with the token in its address.
/// Every answer, a refusal too, forbids another site's page to frame it
/// (the page frames its own reports).
pub async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let mut response = match guard.check(&request) {
        Err(Refused(status, message)) => error(status, message),
        Ok(false) => next.run(request).await,
        Ok(true) => {
            let mut response = next.run(request).await;
            let token = guard.token().unwrap_or_default();
            if let Ok(cookie) = HeaderValue::from_str(&format!(
                "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
            )) {
                response.headers_mut().insert(header::SET_COOKIE, cookie);
            }
            response.into_response()
        }
    };
    let headers = response.headers_mut();
    headers.insert(
        header::X_FRAME_OPTIONS,
        HeaderValue::from_static("SAMEORIGIN"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'self'"),
    );
    response
}

/// Whether the request carries `token` in the header or the cookie.
fn carried(headers: &HeaderMap, token: &str) -> bool {
    let in_header = headers
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| same(t, token));
    let in_cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(name, value)| name == COOKIE && same(value, token));
    in_header || in_cookie
}

/// The `token` parameter of a query string.
fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "token")
        .map(|(_, value)| value.to_owned())
}

/// Compares two secrets without stopping at the first difference.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A fresh random token: 128 bits from the operating system's generator.
pub fn new_token() -> String {
    use rand::RngExt;
    format!("{:032x}", rand::rng().random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    fn request(method: Method, uri: &str, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    fn loopback() -> Guard {
        Guard::new("127.0.0.1:7878".parse().unwrap(), None)
    }

    #[test]
    fn loopback_names_pass_and_a_rebound_name_is_refused() {
        let g = loopback();
        for host in [
            "127.0.0.1:7878",
            "localhost:7878",
            "LOCALHOST:7878",
            "[::1]:7878",
        ] {
            let r = request(Method::GET, "/api/scenarios", &[("host", host)]);
            assert!(g.check(&r).is_ok(), "{host}");
        }
        for host in ["evil.example:7878", "127.0.0.1:7879", "localhost", ""] {
            let r = request(Method::GET, "/api/scenarios", &[("host", host)]);
            let refused = g.check(&r).expect_err(host);
            assert_eq!(refused.0, StatusCode::FORBIDDEN, "{host}");
        }
    }

    #[test]
    fn a_post_from_another_origin_is_refused_and_one_without_origin_passes() {
        let g = loopback();
        let host = ("host", "127.0.0.1:7878");
        let own = request(
            Method::POST,
            "/api/runs",
            &[host, ("origin", "http://127.0.0.1:7878")],
        );
        assert!(g.check(&own).is_ok());
        let script = request(Method::POST, "/api/runs", &[host]);
        assert!(g.check(&script).is_ok());
        for origin in ["http://evil.example", "null", "http://localhost:7878"] {
            let r = request(Method::DELETE, "/api/runs/1", &[host, ("origin", origin)]);
            assert_eq!(g.check(&r).expect_err(origin).0, StatusCode::FORBIDDEN);
        }
    }

    #[test]
    fn a_token_is_required_on_every_call_and_handed_to_the_page_as_a_cookie() {
        let g = Guard::new("0.0.0.0:7878".parse().unwrap(), Some("s3cret".into()));
        let host = ("host", "203.0.113.9:7878");
        let bare = request(Method::GET, "/api/scenarios", &[host]);
        assert_eq!(g.check(&bare).unwrap_err().0, StatusCode::UNAUTHORIZED);
        let wrong = request(
            Method::GET,
            "/api/scenarios",
            &[host, (TOKEN_HEADER, "s3creT")],
        );
        assert!(g.check(&wrong).is_err());
        let header = request(
            Method::GET,
            "/api/scenarios",
            &[host, (TOKEN_HEADER, "s3cret")],
        );
        assert_eq!(g.check(&header).ok(), Some(false));
        let cookie = request(
            Method::GET,
            "/api/runs/1/events",
            &[host, ("cookie", "a=b; warcrunch_token=s3cret")],
        );
        assert_eq!(g.check(&cookie).ok(), Some(false));
        let page = request(Method::GET, "/?token=s3cret", &[host]);
        assert_eq!(g.check(&page).ok(), Some(true), "the page sets the cookie");
        let page = request(Method::GET, "/", &[host]);
        assert_eq!(
            g.check(&page).ok(),
            Some(false),
            "the page itself is public"
        );
    }

    #[test]
    fn tokens_are_fresh_and_long() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
