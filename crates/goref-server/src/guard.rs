//! Cross-site guards: a state-changing request must declare a JSON body (a cross-site form
//! post cannot, so it gets 415), no page may frame the server's (`X-Frame-Options: DENY`),
//! and a WebSocket opened by a page must come from the server's own origin or a configured
//! one ([`check_origin`]). Programs send no `Origin` and are let in.

use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::limits::Limited;

/// Middleware of every route: the JSON rule for state-changing methods, and the frame rule
/// on every answer.
pub async fn cross_site(request: Request, next: Next) -> Response {
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let mut response = if safe || is_json(request.headers()) {
        next.run(request).await
    } else {
        Limited::NotJson.into_response()
    };
    deny_frames(&mut response);
    response
}

/// Adds `X-Frame-Options: DENY`.
pub fn deny_frames(response: &mut Response) {
    response
        .headers_mut()
        .insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// Whether the request declares `application/json` (parameters such as a charset allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// Lets a WebSocket upgrade through when it has no `Origin` (a program), or its `Origin` is
/// the server's own (the same host and port as `Host`, any scheme, for a proxy ending TLS),
/// or one of `allowed` (exact, such as `https://club.example`). Otherwise
/// [`Limited::ForeignOrigin`].
pub fn check_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), Limited> {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let refused = || Limited::ForeignOrigin {
        origin: String::from_utf8_lossy(origin.as_bytes()).into_owned(),
    };
    let origin = origin.to_str().map_err(|_| refused())?.trim();
    if allowed
        .iter()
        .any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(origin))
    {
        return Ok(());
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::trim);
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    match (host, origin_host) {
        (Some(host), Some(origin_host))
            if !host.is_empty() && origin_host.eq_ignore_ascii_case(host) =>
        {
            Ok(())
        }
        _ => Err(refused()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn origins() {
        let allowed = vec!["https://club.example".to_string()];
        let ok = |pairs| check_origin(&headers(pairs), &allowed).is_ok();
        assert!(
            ok(&[("host", "go.example:8080")]),
            "programs send no Origin"
        );
        assert!(ok(&[
            ("host", "go.example:8080"),
            ("origin", "http://go.example:8080")
        ]));
        assert!(ok(&[
            ("host", "go.example"),
            ("origin", "https://GO.example")
        ]));
        assert!(ok(&[
            ("host", "go.example"),
            ("origin", "https://club.example")
        ]));
        assert!(!ok(&[
            ("host", "go.example:8080"),
            ("origin", "http://go.example:9090")
        ]));
        assert!(!ok(&[
            ("host", "go.example"),
            ("origin", "https://evil.example")
        ]));
        assert!(!ok(&[("host", "go.example"), ("origin", "null")]));
        assert!(!ok(&[("origin", "https://go.example")]), "no Host");
    }

    #[test]
    fn json_content_types() {
        assert!(is_json(&headers(&[("content-type", "application/json")])));
        assert!(is_json(&headers(&[(
            "content-type",
            "Application/JSON; charset=utf-8"
        )])));
        assert!(!is_json(&headers(&[(
            "content-type",
            "application/x-www-form-urlencoded"
        )])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
        assert!(!is_json(&HeaderMap::new()));
    }
}
