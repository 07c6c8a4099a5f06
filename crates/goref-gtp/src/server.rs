//! The engine side of GTP: read commands, answer them (GTP 2 §2-§3). Used by goref's built-in
//! engines; synchronous, so that an engine process starts in a millisecond.

use std::io::{self, BufRead, Write};

/// What a handler made of one command.
pub enum Answer {
    /// `= text`.
    Success(String),
    /// `? text`.
    Failure(String),
    /// Write `noise` (raw bytes, stray output) and then `=id ` `reply` with CRLF line ends:
    /// the faulty engine's garbage.
    Noise {
        /// The stray bytes.
        noise: Vec<u8>,
        /// The reply after them.
        reply: Vec<u8>,
    },
    /// `= ` then stop the loop.
    Quit,
}

/// An engine: the commands it knows and how it answers them.
pub trait Handler {
    /// Every command it knows, for `list_commands` and `known_command`.
    fn commands(&self) -> Vec<&'static str>;
    /// Answers `name args…`; the loop itself answers `protocol_version`, `list_commands`,
    /// `known_command` and `quit` unless the handler does.
    fn handle(&mut self, name: &str, args: &[&str]) -> Answer;
}

/// A command line as GTP 2 §3.1 asks an engine to read it: control characters other than tab
/// and line feed removed, tabs made spaces, a `#` comment removed. `None` for an empty line;
/// otherwise the id (if any) and the words.
#[must_use]
pub fn preprocess(raw: &[u8]) -> Option<(Option<u32>, Vec<String>)> {
    let text = String::from_utf8_lossy(raw);
    let text: String = text
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let text = text.split('#').next().unwrap_or("");
    let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    if words.is_empty() {
        return None;
    }
    let id = words[0].parse::<u32>().ok();
    if id.is_some() {
        words.remove(0);
    }
    Some((id, words))
}

/// Reads commands from `input` and answers on `output` until `quit` or the end of input.
pub fn serve(
    handler: &mut dyn Handler,
    input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    for line in input.split(b'\n') {
        let line = line?;
        let Some((id, words)) = preprocess(&line) else {
            continue;
        };
        let id_text = id.map(|i| i.to_string()).unwrap_or_default();
        let answer = if words.is_empty() {
            Answer::Failure("empty command".into())
        } else {
            let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            answer(handler, &words[0], &args)
        };
        match answer {
            Answer::Success(text) => write!(output, "={id_text} {text}\n\n")?,
            Answer::Failure(text) => write!(output, "?{id_text} {text}\n\n")?,
            Answer::Noise { noise, reply } => {
                output.write_all(&noise)?;
                write!(output, "={id_text} ")?;
                output.write_all(&reply)?;
                output.write_all(b"\r\n\r\n")?;
            }
            Answer::Quit => {
                write!(output, "={id_text}\n\n")?;
                output.flush()?;
                return Ok(());
            }
        }
        output.flush()?;
    }
    Ok(())
}

fn answer(handler: &mut dyn Handler, name: &str, args: &[&str]) -> Answer {
    let known = handler.commands();
    let mut all: Vec<&str> = vec!["protocol_version", "known_command", "list_commands", "quit"];
    all.extend(
        known
            .iter()
            .filter(|c| !all.contains(c))
            .collect::<Vec<_>>(),
    );
    if known.contains(&name) {
        return handler.handle(name, args);
    }
    match name {
        "protocol_version" => Answer::Success("2".into()),
        "list_commands" => Answer::Success(all.join("\n")),
        "known_command" => {
            Answer::Success(args.first().is_some_and(|c| all.contains(c)).to_string())
        }
        "quit" => Answer::Quit,
        _ => Answer::Failure("unknown command".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl Handler for Echo {
        fn commands(&self) -> Vec<&'static str> {
            vec!["echo"]
        }
        fn handle(&mut self, _: &str, args: &[&str]) -> Answer {
            Answer::Success(args.join(" "))
        }
    }

    fn run(input: &[u8]) -> String {
        let mut out = Vec::new();
        serve(&mut Echo, input, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn ids_comments_and_control_characters_follow_gtp_3_1() {
        let out = run(b"# a comment\n\n7 echo a\tb # c\r\necho x\x01y\n");
        assert_eq!(out, "=7 a b\n\n= xy\n\n");
    }

    #[test]
    fn builtin_commands_and_quit_stop_the_loop() {
        let out = run(b"1 protocol_version\n2 known_command echo\n3 known_command fly\n4 fly\n5 list_commands\n6 quit\n7 echo late\n");
        assert_eq!(
            out,
            "=1 2\n\n=2 true\n\n=3 false\n\n?4 unknown command\n\n=5 protocol_version\nknown_command\nlist_commands\nquit\necho\n\n=6\n\n"
        );
    }
}
