//! Issue 23 §6: two `goref serve` on one PostgreSQL database behind nginx with the README's
//! configuration (`deploy/nginx-goref.conf`, addresses filled in): games, the game WebSocket
//! and the lobby's go through the proxy to either instance; when one instance is killed with
//! SIGKILL, players who connect again through the proxy reach the other and finish the game.
//! Needs PostgreSQL (`PGDATABASE`, as under `pg_virtualenv`) and nginx (`/usr/sbin/nginx`,
//! Debian's nginx-light); skipped loudly without them, unless GOREF_REQUIRE_PG /
//! GOREF_REQUIRE_NGINX is set, then it fails:
//!
//!     GOREF_REQUIRE_NGINX=1 pg_virtualenv -t cargo test -p goref --test proxy

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use goref_server::client::{create_game, http, login, LobbyClient, Player};
use serde_json::{json, Value};

const NGINX: &str = "/usr/sbin/nginx";

fn have_nginx() -> bool {
    if Path::new(NGINX).exists() {
        return true;
    }
    assert!(
        std::env::var_os("GOREF_REQUIRE_NGINX").is_none(),
        "GOREF_REQUIRE_NGINX is set but {NGINX} is missing"
    );
    eprintln!("SKIPPED: no nginx at {NGINX} (apt-get install nginx-light)");
    false
}

struct Nginx(Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// nginx in the foreground with the repository's configuration, its upstreams `one` and
/// `two`, listening on a free port of its own; its address.
fn nginx(dir: &Path, one: SocketAddr, two: SocketAddr) -> (Nginx, SocketAddr) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let snippet = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx-goref.conf"),
    )
    .unwrap();
    assert!(snippet.contains("127.0.0.1:8081") && snippet.contains("listen 8080;"));
    let snippet = snippet
        .replace("127.0.0.1:8081", &one.to_string())
        .replace("127.0.0.1:8082", &two.to_string())
        .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"));
    std::fs::write(dir.join("goref.conf"), snippet).unwrap();
    let d = dir.display();
    let conf = format!(
        "worker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\ndaemon off;\n\
         events {{ worker_connections 256; }}\n\
         http {{\n access_log off;\n client_body_temp_path {d}/body;\n proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n\
         include {d}/goref.conf;\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    // Its workers may run as another user: they write only here.
    let _ = Command::new("chmod")
        .args(["-R", "a+rwx"])
        .arg(dir)
        .status();
    let child = Command::new(NGINX)
        .args(["-e", &format!("{d}/error.log"), "-p"])
        .arg(dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx starts");
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nginx does not listen: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (Nginx(child), addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_behind_nginx_serve_games_and_lobbies_and_survive_one_dying() {
    let Some(db) = common::pg_database("proxy") else {
        return;
    };
    if !have_nginx() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("goref-proxy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let flags = ["--trust-forwarded-for", "--rate", "1000"];
    let first = common::serve(&db, &flags);
    let second = common::serve(&db, &flags);
    let (_nginx, proxy) = nginx(&dir, first.addr, second.addr);

    // The page, the API and both WebSockets through the proxy.
    let (status, page) = http(proxy, "GET", "/", None).await.unwrap();
    assert_eq!(status, 200);
    assert!(page.contains("<html"), "{page}");
    let game = create_game(proxy, &json!({"width": 5, "rules": "tromp-taylor"}))
        .await
        .unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let (b, w) = (
        game["black"]["secret"].as_str().unwrap().to_string(),
        game["white"]["secret"].as_str().unwrap().to_string(),
    );
    let mut black = Player::connect(proxy, &id, Some(&b)).await.unwrap();
    let mut white = Player::connect(proxy, &id, Some(&w)).await.unwrap();
    let v = black
        .must(json!({"type": "play", "x": 2, "y": 2}))
        .await
        .unwrap();
    white.wait_version(v).await.unwrap();
    let v = white
        .must(json!({"type": "play", "x": 1, "y": 1}))
        .await
        .unwrap();
    black.wait_version(v).await.unwrap();
    let token = login(proxy, "viaproxy", "pw-proxy", false, true)
        .await
        .unwrap();
    let lobby = LobbyClient::connect(proxy, &token).await.unwrap();
    assert_eq!(lobby.account["name"], "viaproxy");

    // One instance dies: players connecting again through the proxy reach the other, with
    // the game as stored, and finish it.
    first.kill();
    drop((black, white));
    let mut black = Player::connect(proxy, &id, Some(&b)).await.unwrap();
    let mut white = Player::connect(proxy, &id, Some(&w)).await.unwrap();
    assert_eq!(black.state["version"], 2, "{}", black.state);
    let v = black
        .must(json!({"type": "play", "x": 3, "y": 3}))
        .await
        .unwrap();
    white.wait_version(v).await.unwrap();
    white.must(json!({"type": "resign"})).await.unwrap();
    let (status, state) = http(proxy, "GET", &format!("/api/games/{id}"), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["result"], "B+R");
    // Every request of a burst is answered (the dead instance is skipped).
    for _ in 0..10 {
        let (status, _) = http(proxy, "GET", "/api/games", None).await.unwrap();
        assert_eq!(status, 200);
    }
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}
