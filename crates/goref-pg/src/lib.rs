//! PostgreSQL for goref's crates that keep data there (the queue, the server's store):
//!
//! - [`config`]: connection settings, completed from the `PG*` environment variables as libpq
//!   completes them (as `pg_virtualenv` sets them), so that `postgres:///db` or an empty
//!   `key=value` string reaches the cluster the environment names.
//! - [`migrate`]: one schema runner: versions applied in order, each in a transaction, under
//!   an advisory lock, recorded in a table of the caller's.
//! - [`testing`]: a cluster for tests, or a loud skip.
//!
//! ```
//! // An address with everything given needs nothing from the environment.
//! let config = goref_pg::config("postgres://me@db.example:5433/games").unwrap();
//! assert_eq!(config.get_user(), Some("me"));
//! assert_eq!(config.get_ports(), [5433]);
//! assert_eq!(config.get_dbname(), Some("games"));
//! ```

/// The connection settings of `url` (`postgres://…`, `postgresql://…` or `key=value …`); what
/// it leaves out is taken from `PGHOST` (else `localhost`), `PGPORT`, `PGUSER`, `PGPASSWORD`
/// and `PGDATABASE` when they are set and not empty.
///
/// # Errors
///
/// When `url` cannot be read as connection settings.
pub fn config(url: &str) -> Result<tokio_postgres::Config, tokio_postgres::Error> {
    let mut config: tokio_postgres::Config = url.parse()?;
    complete(&mut config, |k| {
        std::env::var(k).ok().filter(|v| !v.is_empty())
    });
    Ok(config)
}

/// Why a schema could not be brought up to date.
#[derive(Debug)]
pub enum MigrationError {
    /// The database refused or failed (`version`: while applying that version).
    Database {
        /// The version being applied, if one was.
        version: Option<i32>,
        /// What the database said.
        source: tokio_postgres::Error,
    },
    /// The schema is at a version newer than the caller knows.
    Newer {
        /// The version applied in the database.
        applied: i32,
        /// The versions the caller knows.
        known: usize,
    },
}

impl std::fmt::Display for MigrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MigrationError::Database {
                version: Some(v),
                source,
            } => write!(f, "schema version {v}: {}", db_message(source)),
            MigrationError::Database {
                version: None,
                source,
            } => f.write_str(&db_message(source)),
            MigrationError::Newer { applied, known } => write!(
                f,
                "the schema is at version {applied}, newer than this goref knows ({known}): \
                 run a newer goref"
            ),
        }
    }
}

impl std::error::Error for MigrationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MigrationError::Database { source, .. } => Some(source),
            MigrationError::Newer { .. } => None,
        }
    }
}

/// The database's own message when it gave one, else the client's.
fn db_message(e: &tokio_postgres::Error) -> String {
    e.as_db_error()
        .map_or_else(|| e.to_string(), |d| d.message().to_string())
}

/// Applies the versions of `migrations` not yet applied (version `n` is `migrations[n - 1]`),
/// each in a transaction of its own with its row in `table` (created when missing), under the
/// session advisory lock `lock` (two processes starting at once do not both apply one).
///
/// ```no_run
/// # async fn demo(client: &tokio_postgres::Client) -> Result<(), goref_pg::MigrationError> {
/// const MIGRATIONS: &[&str] = &["CREATE TABLE notes (id TEXT PRIMARY KEY)"];
/// goref_pg::migrate(client, 4711, "my_migrations", MIGRATIONS).await?;
/// # Ok(()) }
/// ```
///
/// # Errors
///
/// A database error (that version's transaction rolled back), or a schema newer than
/// `migrations`.
///
/// # Panics
///
/// When `table` is not a plain SQL name (ASCII letters, digits, `_`): it is the caller's
/// constant, written into the SQL.
pub async fn migrate(
    client: &tokio_postgres::Client,
    lock: i64,
    table: &str,
    migrations: &[&str],
) -> Result<(), MigrationError> {
    assert!(
        !table.is_empty() && table.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
        "migration table '{table}' is not a plain name"
    );
    let db = |version| move |source| MigrationError::Database { version, source };
    client
        .batch_execute(&format!(
            "SELECT pg_advisory_lock({lock});
             CREATE TABLE IF NOT EXISTS {table} (
                 version INTEGER PRIMARY KEY,
                 applied_at TIMESTAMPTZ NOT NULL DEFAULT now());"
        ))
        .await
        .map_err(db(None))?;
    let result = async {
        let row = client
            .query_one(
                &format!("SELECT COALESCE(MAX(version), 0) FROM {table}"),
                &[],
            )
            .await
            .map_err(db(None))?;
        let applied: i32 = row.get(0);
        if usize::try_from(applied).unwrap_or(usize::MAX) > migrations.len() {
            return Err(MigrationError::Newer {
                applied,
                known: migrations.len(),
            });
        }
        let insert = format!("INSERT INTO {table} (version) VALUES ($1)");
        for (version, sql) in (1..).zip(migrations) {
            if version <= applied {
                continue;
            }
            client
                .batch_execute("BEGIN")
                .await
                .map_err(db(Some(version)))?;
            let applied = async {
                client.batch_execute(sql).await?;
                client.execute(&insert, &[&version]).await?;
                client.batch_execute("COMMIT").await
            }
            .await;
            if let Err(e) = applied {
                let _ = client.batch_execute("ROLLBACK").await;
                return Err(db(Some(version))(e));
            }
        }
        Ok(())
    }
    .await;
    let _ = client
        .batch_execute(&format!("SELECT pg_advisory_unlock({lock})"))
        .await;
    result
}

/// For tests: whether a PostgreSQL cluster is there, and databases of their own in it. CI
/// runs the PostgreSQL tests under `pg_virtualenv` with `GOREF_REQUIRE_PG` set: there a missing
/// cluster is a failure, not a silently passing test.
pub mod testing {
    use std::process::{Command, Stdio};

    /// Whether PostgreSQL is there (`PGDATABASE` set and not empty, as `pg_virtualenv` sets
    /// it); if not, says the test skips.
    ///
    /// # Panics
    ///
    /// When it is not there and `GOREF_REQUIRE_PG` is set.
    #[must_use]
    pub fn postgres_there() -> bool {
        let there = std::env::var("PGDATABASE").is_ok_and(|d| !d.is_empty());
        assert!(
            there || std::env::var_os("GOREF_REQUIRE_PG").is_none(),
            "no PostgreSQL: run under pg_virtualenv (.ci/run does)"
        );
        if !there {
            eprintln!("skipping: no PostgreSQL (run under pg_virtualenv)");
        }
        there
    }

    /// A new, empty database `{prefix}_{process id}_{name}` (dropped first if it is left over
    /// from an earlier run), as a `postgres:///` URL; `None` without PostgreSQL (see
    /// [`postgres_there`]).
    ///
    /// # Panics
    ///
    /// When `createdb` fails, or PostgreSQL is required and not there.
    #[must_use]
    pub fn fresh_database(prefix: &str, name: &str) -> Option<String> {
        if !postgres_there() {
            return None;
        }
        let db = format!("{prefix}_{}_{name}", std::process::id());
        let _ = Command::new("dropdb")
            .args(["--if-exists", &db])
            .stderr(Stdio::null())
            .status();
        let created = Command::new("createdb")
            .arg(&db)
            .status()
            .expect("createdb runs");
        assert!(created.success(), "createdb {db}");
        Some(format!("postgres:///{db}"))
    }
}

fn complete(config: &mut tokio_postgres::Config, env: impl Fn(&str) -> Option<String>) {
    if config.get_hosts().is_empty() {
        config.host(env("PGHOST").as_deref().unwrap_or("localhost"));
    }
    if config.get_ports().is_empty() {
        if let Some(p) = env("PGPORT").and_then(|p| p.parse().ok()) {
            config.port(p);
        }
    }
    if config.get_user().is_none() {
        if let Some(u) = env("PGUSER") {
            config.user(&u);
        }
    }
    if config.get_password().is_none() {
        if let Some(p) = env("PGPASSWORD") {
            config.password(p);
        }
    }
    if config.get_dbname().is_none() {
        if let Some(d) = env("PGDATABASE") {
            config.dbname(&d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_postgres::config::Host;

    fn completed(url: &str, vars: &[(&str, &str)]) -> tokio_postgres::Config {
        let mut config: tokio_postgres::Config = url.parse().unwrap();
        complete(&mut config, |k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.to_string())
        });
        config
    }

    /// What the address leaves out comes from the environment; what it gives stays.
    #[test]
    fn the_environment_fills_what_the_address_leaves_out() {
        let vars = [
            ("PGHOST", "/run/pg"),
            ("PGPORT", "6543"),
            ("PGUSER", "env-user"),
            ("PGPASSWORD", "pw"),
            ("PGDATABASE", "envdb"),
        ];
        let c = completed("postgres:///", &vars);
        assert_eq!(c.get_hosts(), [Host::Unix("/run/pg".into())]);
        assert_eq!(c.get_ports(), [6543]);
        assert_eq!(c.get_user(), Some("env-user"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert_eq!(c.get_dbname(), Some("envdb"));
        let c = completed("postgres://me:secret@h:5000/mine", &vars);
        assert_eq!(c.get_hosts(), [Host::Tcp("h".into())]);
        assert_eq!(c.get_ports(), [5000]);
        assert_eq!(c.get_user(), Some("me"));
        assert_eq!(c.get_password(), Some(&b"secret"[..]));
        assert_eq!(c.get_dbname(), Some("mine"));
    }

    /// With nothing in the environment the host is `localhost`, and nothing else is set.
    #[test]
    fn without_environment_the_host_is_localhost() {
        let c = completed("postgres:///", &[]);
        assert_eq!(c.get_hosts(), [Host::Tcp("localhost".into())]);
        assert!(c.get_ports().is_empty());
        assert_eq!(c.get_user(), None);
    }

    #[test]
    fn an_unreadable_address_is_an_error() {
        assert!(config("postgres://h:notaport/db").is_err());
    }
}
