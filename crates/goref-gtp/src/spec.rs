//! How to reach an engine: a command line (with working directory and environment) or a TCP
//! address.

use std::fmt;
use std::path::PathBuf;

/// An engine command that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// `tcp://` without `host:port`.
    #[error("'{0}' is not tcp://host:port")]
    NotHostPort(String),
    /// A quote opened and not closed (`'` or `"`).
    #[error("unclosed {quote} in '{text}'")]
    Unclosed {
        /// The quote.
        quote: char,
        /// The command.
        text: String,
    },
    /// No program.
    #[error("empty engine command")]
    Empty,
}

/// Where an engine runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// A program started by goref, spoken to over its standard input and output.
    Process {
        /// Program and arguments.
        argv: Vec<String>,
        /// Working directory (default: goref's).
        cwd: Option<PathBuf>,
        /// Extra environment variables.
        env: Vec<(String, String)>,
    },
    /// An engine listening at `host:port`, reached over TCP.
    Tcp {
        /// `host:port`.
        address: String,
    },
}

impl EngineSpec {
    /// Reads a command line (`gnugo --mode gtp`, with `'…'`, `"…"` and `\` quoting as a shell
    /// reads them) or `tcp://host:port`.
    ///
    /// # Errors
    ///
    /// An unclosed quote, no program, or `tcp://` without `host:port`.
    pub fn parse(text: &str) -> Result<EngineSpec, SpecError> {
        if let Some(address) = text.trim().strip_prefix("tcp://") {
            if address.is_empty() || !address.contains(':') {
                return Err(SpecError::NotHostPort(text.to_string()));
            }
            return Ok(EngineSpec::Tcp {
                address: address.trim_end_matches('/').to_string(),
            });
        }
        let argv = split_words(text)?;
        if argv.is_empty() {
            return Err(SpecError::Empty);
        }
        Ok(EngineSpec::Process {
            argv,
            cwd: None,
            env: Vec::new(),
        })
    }

    /// The same spec with every `{key}` in the arguments replaced by `value`.
    #[must_use]
    pub fn substitute(&self, key: &str, value: &str) -> EngineSpec {
        let pattern = format!("{{{key}}}");
        match self {
            EngineSpec::Process { argv, cwd, env } => EngineSpec::Process {
                argv: argv.iter().map(|a| a.replace(&pattern, value)).collect(),
                cwd: cwd.clone(),
                env: env.clone(),
            },
            tcp => tcp.clone(),
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Process { argv, .. } => {
                let words: Vec<String> = argv.iter().map(|w| quote(w)).collect();
                f.write_str(&words.join(" "))
            }
            EngineSpec::Tcp { address } => write!(f, "tcp://{address}"),
        }
    }
}

fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+{}@%".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Splits a command line into words as a POSIX shell would, without expansions.
///
/// # Errors
///
/// A quote opened and not closed.
pub fn split_words(text: &str) -> Result<Vec<String>, SpecError> {
    let unclosed = |quote| SpecError::Unclosed {
        quote,
        text: text.to_string(),
    };
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(unclosed('\'')),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(unclosed('"')),
                        },
                        Some(c) => w.push(c),
                        None => return Err(unclosed('"')),
                    }
                }
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                if let Some(c) = chars.next() {
                    w.push(c);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = word {
        words.push(w);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_words(r#"gnugo --mode gtp  'a b' "c \"d\"" e\ f ''"#).unwrap(),
            vec!["gnugo", "--mode", "gtp", "a b", "c \"d\"", "e f", ""]
        );
        assert!(split_words("x 'y").is_err());
    }

    #[test]
    fn tcp_addresses_and_substitution() {
        assert_eq!(
            EngineSpec::parse("tcp://127.0.0.1:5000").unwrap(),
            EngineSpec::Tcp {
                address: "127.0.0.1:5000".into()
            }
        );
        assert!(EngineSpec::parse("tcp://nohost").is_err());
        let spec = EngineSpec::parse("goref engine random --seed {game}").unwrap();
        assert_eq!(
            spec.substitute("game", "7").to_string(),
            "goref engine random --seed 7"
        );
    }
}
