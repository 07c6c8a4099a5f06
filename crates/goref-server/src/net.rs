//! The accept loop (hyper's HTTP/1.1 with upgrades, in place of `axum::serve`, which has few
//! knobs): a cap on open connections, overall and per client address, beyond which a new
//! connection gets a short 503 and is closed at once (games in progress keep their
//! connections); a timeout for the request head (slowloris, and the wait for the next request
//! of a kept-alive connection); a timeout for a connection on which no byte moves either way;
//! a timeout for a whole request. A WebSocket keeps its connection's slot until it closes; its
//! liveness is kept by pings (see the server's connection loop).

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::response::IntoResponse;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::ServiceExt;

use crate::guard::deny_frames;
use crate::limits::{address_key, forwarded_client, ClientAddr, Limited};

/// The connection limits (from [`crate::Options`]).
#[derive(Clone, Debug)]
pub struct ConnLimits {
    /// Open connections at most (WebSockets included).
    pub max_connections: usize,
    /// Open connections at most from one client address ([`address_key`]).
    pub max_per_address: usize,
    /// The whole request head must arrive within this.
    pub header_timeout: Duration,
    /// A connection on which no byte moves either way for this long is closed (WebSockets
    /// excepted: they are kept by pings).
    pub idle_timeout: Duration,
    /// A request (its body included) must be answered within this, or gets 408.
    pub request_timeout: Duration,
    /// Whether a peer on this machine is a reverse proxy whose `X-Forwarded-For` names the
    /// client (for the limits of requests); its connections are then not capped per address.
    pub trust_forwarded_for: bool,
}

/// The queue of connections the kernel completes before the server accepts them (the kernel
/// caps it at `net.core.somaxconn`): a thousand programs connecting at once after a restart
/// must not overflow it, or some believe they are connected while the server never saw them.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` (a host name or an address with a port) with [`LISTEN_BACKLOG`].
///
/// # Errors
///
/// The address cannot be resolved or bound.
pub async fn listen(addr: &str) -> std::io::Result<TcpListener> {
    let mut last = None;
    for a in tokio::net::lookup_host(addr).await? {
        let socket = if a.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        match socket.bind(a).and_then(|()| socket.listen(LISTEN_BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::AddrNotAvailable,
            "no address to listen on",
        )
    }))
}

/// Serves `app` on `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, app: Router, limits: ConnLimits) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_address: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let busy = busy_response();
    loop {
        let (stream, remote) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of descriptors or a connection reset before it was accepted: pause
                // instead of spinning; connections already open go on.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let key = address_key(remote.ip());
        let proxy = limits.trust_forwarded_for && remote.ip().is_loopback();
        let slot = permits.clone().try_acquire_owned().ok().and_then(|permit| {
            let mut counts = per_address.lock().unwrap_or_else(|e| e.into_inner());
            let count = counts.entry(key.clone()).or_insert(0);
            if *count >= limits.max_per_address.max(1) && !proxy {
                return None;
            }
            *count += 1;
            Some(Slot {
                _permit: permit,
                key,
                per_address: per_address.clone(),
            })
        });
        let Some(slot) = slot else {
            // A short answer without waiting (the socket's buffer takes it), then closed.
            let _ = stream.try_write(&busy);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            ClientAddr(remote),
            slot,
            app.clone(),
            limits.clone(),
        ));
    }
}

fn busy_response() -> Vec<u8> {
    let limited = Limited::Busy;
    let body = limited.body();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: {}\r\nx-frame-options: DENY\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        limited.retry_after_s().unwrap_or(5),
        body.len()
    )
    .into_bytes()
}

/// One connection's share of the caps, given back when its socket closes (for a WebSocket,
/// when the upgraded connection ends).
struct Slot {
    _permit: OwnedSemaphorePermit,
    key: String,
    per_address: Arc<Mutex<HashMap<String, usize>>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.per_address.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

async fn connection(
    stream: TcpStream,
    client: ClientAddr,
    slot: Slot,
    app: Router,
    limits: ConnLimits,
) {
    let epoch = Instant::now();
    let last = Arc::new(AtomicU64::new(0));
    let io = Watched {
        inner: stream,
        epoch,
        last: last.clone(),
        _slot: slot,
    };
    let request_timeout = limits.request_timeout;
    let proxy = limits.trust_forwarded_for && client.0.ip().is_loopback();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
        let app = app.clone();
        let client = match forwarded_client(request.headers()) {
            Some(ip) if proxy => ClientAddr(std::net::SocketAddr::new(ip, 0)),
            _ => client,
        };
        request.extensions_mut().insert(client);
        let request = request.map(axum::body::Body::new);
        async move {
            let response = match tokio::time::timeout(request_timeout, app.oneshot(request)).await {
                Ok(Ok(response)) => response,
                Ok(Err(never)) => match never {},
                Err(_) => {
                    let mut response = Limited::RequestTimeout.into_response();
                    deny_frames(&mut response);
                    response
                }
            };
            Ok::<_, Infallible>(response)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let conn = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let every = (limits.idle_timeout / 4).max(Duration::from_millis(50));
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    loop {
        tokio::select! {
            // Ended, or handed over to a WebSocket (which then holds the socket and its slot).
            _ = conn.as_mut() => return,
            _ = tick.tick() => {
                let idle = epoch.elapsed().saturating_sub(Duration::from_millis(last.load(Ordering::Relaxed)));
                if idle >= limits.idle_timeout {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(1), conn.as_mut()).await;
                    return;
                }
            }
        }
    }
}

/// A socket that notes when a byte last moved, and holds its connection's slot.
struct Watched {
    inner: TcpStream,
    epoch: Instant,
    last: Arc<AtomicU64>,
    _slot: Slot,
}

impl Watched {
    fn moved(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.moved();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.moved();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Raises the soft limit on open files to the hard one (Unix); returns the soft limit then,
/// when known. Every connection needs a descriptor: the cap on connections must stay below.
#[must_use]
pub fn raise_open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit/setrlimit only read and write the struct given.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
                return None;
            }
            if lim.rlim_cur < lim.rlim_max {
                let mut raised = lim;
                raised.rlim_cur = lim.rlim_max;
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    lim = raised;
                }
            }
        }
        #[allow(clippy::unnecessary_cast)]
        Some(lim.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}
