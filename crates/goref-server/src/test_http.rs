//! One request through a feature's router in the tests, without a network.

use axum::Router;
use tower::ServiceExt;

/// What a request got: the status, the content type, the body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) kind: Option<String>,
    pub(crate) body: axum::body::Bytes,
}

impl Answer {
    /// The body as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// `method uri` with `body`, as account `token` when given (`Authorization: Bearer`).
pub(crate) async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    body: &str,
    token: Option<&str>,
) -> Answer {
    let mut request = axum::http::Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        request = request.header("authorization", format!("Bearer {t}"));
    }
    let response = app
        .clone()
        .oneshot(
            request
                .body(axum::body::Body::from(body.to_string()))
                .expect("a request"),
        )
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = axum::body::to_bytes(response.into_body(), 1 << 24)
        .await
        .expect("a body");
    Answer { status, kind, body }
}
