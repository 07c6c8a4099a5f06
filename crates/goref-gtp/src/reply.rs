//! GTP version 2 replies, read robustly from whatever an engine prints.
//!
//! A reply is `=[id] text` (success) or `?[id] text` (failure), possibly over several lines,
//! ended by an empty line (GTP 2 §2.6, §3.2). Engines get this wrong in many small ways, and
//! goref reads around them: CR before LF, bytes that are not UTF-8 (replaced by U+FFFD), lines
//! printed before the reply starts (kept as *stray* output), and a final line of spaces or tabs
//! taken for the empty line.

/// One complete reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The id echoed by the engine, if it wrote one.
    pub id: Option<u32>,
    /// `=` (true) or `?` (false).
    pub success: bool,
    /// The text after the status character and id, lines joined by `\n`, without the first
    /// separating space and without trailing blank space.
    pub text: String,
}

impl std::fmt::Display for Reply {
    /// The reply as an engine writes it: `=[id] text` or `?[id] text`, then the empty line
    /// that ends it. [`ReplyParser`] reads it back to the same reply.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = if self.success { '=' } else { '?' };
        match self.id {
            Some(id) => write!(f, "{status}{id} {}\n\n", self.text),
            None => write!(f, "{status} {}\n\n", self.text),
        }
    }
}

/// What one line of engine output was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The line completed a reply.
    Reply(Reply),
    /// Output outside any reply (debug prints, garbage): kept for the log.
    Stray(String),
    /// Part of a reply still being read.
    Pending,
}

/// Longest line kept; the rest of a longer line is dropped (an engine printing megabytes with
/// no newline must not exhaust memory).
pub const MAX_LINE: usize = 64 * 1024;

/// Longest reply kept, in lines.
pub const MAX_REPLY_LINES: usize = 10_000;

/// Turns lines of engine output into replies.
#[derive(Debug, Default)]
pub struct ReplyParser {
    current: Option<(Option<u32>, bool, Vec<String>)>,
}

impl ReplyParser {
    /// A parser between replies.
    #[must_use]
    pub fn new() -> ReplyParser {
        ReplyParser::default()
    }

    /// Whether a reply has started and not yet ended.
    #[must_use]
    pub fn in_reply(&self) -> bool {
        self.current.is_some()
    }

    /// Feeds one line, with or without its `\n` (and `\r`).
    pub fn push_line(&mut self, raw: &[u8]) -> Event {
        let line = clean_line(raw);
        match &mut self.current {
            None => {
                let mut chars = line.chars();
                let success = match chars.next() {
                    Some('=') => true,
                    Some('?') => false,
                    _ => {
                        return if line.trim().is_empty() {
                            Event::Pending
                        } else {
                            Event::Stray(line)
                        }
                    }
                };
                let rest = chars.as_str();
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                let id = if digits == 0 {
                    None
                } else {
                    rest[..digits].parse().ok()
                };
                let text = rest[digits..]
                    .strip_prefix([' ', '\t'])
                    .unwrap_or(&rest[digits..]);
                // A reply whose first line also ends it cannot happen: the empty line comes after.
                self.current = Some((id, success, vec![text.to_string()]));
                Event::Pending
            }
            Some((_, _, lines)) => {
                if line.trim().is_empty() {
                    let (id, success, lines) = self.current.take().expect("in a reply");
                    let mut text = lines.join("\n");
                    text.truncate(text.trim_end().len());
                    Event::Reply(Reply { id, success, text })
                } else {
                    if lines.len() < MAX_REPLY_LINES {
                        lines.push(line);
                    }
                    Event::Pending
                }
            }
        }
    }
}

/// What [`reads_back`] found wrong in what it read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Misread {
    /// A stray line that is blank.
    BlankStray,
    /// A reply whose text ends in blank space.
    TrailingSpace(Reply),
    /// A reply that, printed as an engine would, reads back as `read`.
    Printed {
        /// The reply read.
        reply: Reply,
        /// What its printed text read as.
        read: Vec<Event>,
    },
}

/// Reads `output` (any bytes) line by line as [`ReplyParser`] does and checks each event: a
/// stray line is never blank, a reply's text never ends in blank space, and every reply,
/// printed as an engine would ([`Reply`]'s `Display`), reads back to the same reply. The
/// invariant the fuzz target `gtp_replies` and the unit tests check; the replies read.
///
/// # Errors
///
/// The first event that breaks it.
pub fn reads_back(output: &[u8]) -> Result<usize, Misread> {
    let mut parser = ReplyParser::new();
    let mut replies = 0;
    for line in output.split(|&b| b == b'\n') {
        match parser.push_line(line) {
            Event::Reply(reply) => {
                if reply.text.trim_end() != reply.text {
                    return Err(Misread::TrailingSpace(reply));
                }
                let printed = reply.to_string();
                let mut again = ReplyParser::new();
                let read: Vec<Event> = printed
                    .split_inclusive('\n')
                    .map(|l| again.push_line(l.as_bytes()))
                    .filter(|e| *e != Event::Pending)
                    .collect();
                if read != [Event::Reply(reply.clone())] {
                    return Err(Misread::Printed { reply, read });
                }
                replies += 1;
            }
            Event::Stray(text) if text.trim().is_empty() => return Err(Misread::BlankStray),
            Event::Stray(_) | Event::Pending => {}
        }
    }
    Ok(replies)
}

/// A line as text: without the line end, bytes that are not UTF-8 replaced, tabs made spaces,
/// other control characters removed (GTP 2 §3.1 asks the same of engines).
#[must_use]
pub fn clean_line(raw: &[u8]) -> String {
    let raw = &raw[..raw.len().min(MAX_LINE)];
    let text = String::from_utf8_lossy(raw);
    text.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// What an engine may print, at random: replies (with ids, several lines, CR LF, tabs,
    /// blank lines of spaces), stray lines, control bytes and bytes that are not UTF-8. Every
    /// reply read, printed as an engine would, reads back to the same reply; a stray line is
    /// never blank; a reply's text never ends in blank space (the property the fuzz target
    /// `gtp_replies` checks on any bytes).
    #[test]
    fn every_reply_read_prints_as_an_engine_would_and_reads_back_the_same() {
        let mut rng = goref_rules::playout::Rng::new(0x5EED);
        let pieces: [&[u8]; 16] = [
            b"=",
            b"?",
            b"=12",
            b"?7 ",
            b" ",
            b"\t",
            b"\r",
            b"\n",
            b"\n\n",
            b"abc",
            b"C3",
            b"  \n",
            b"\xff\xfe",
            b"\x01",
            b"=99999999999",
            b"pass",
        ];
        let mut replies = 0;
        for _ in 0..2_000 {
            let mut output = Vec::new();
            for _ in 0..rng.below(30) {
                output.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            replies += super::reads_back(&output).unwrap_or_else(|m| panic!("{output:?}: {m:?}"));
        }
        assert!(replies > 1_000, "{replies} replies read");
    }

    use super::*;

    fn feed(parser: &mut ReplyParser, text: &[u8]) -> Vec<Event> {
        text.split_inclusive(|&b| b == b'\n')
            .map(|l| parser.push_line(l))
            .filter(|e| *e != Event::Pending)
            .collect()
    }

    fn ok(id: Option<u32>, text: &str) -> Event {
        Event::Reply(Reply {
            id,
            success: true,
            text: text.into(),
        })
    }

    #[test]
    fn ids_are_read_and_optional() {
        let mut p = ReplyParser::new();
        assert_eq!(feed(&mut p, b"=12 C3\n\n"), vec![ok(Some(12), "C3")]);
        assert_eq!(feed(&mut p, b"= pass\n\n"), vec![ok(None, "pass")]);
        assert_eq!(feed(&mut p, b"=7\n\n"), vec![ok(Some(7), "")]);
        assert_eq!(feed(&mut p, b"=\n\n"), vec![ok(None, "")]);
    }

    #[test]
    fn multi_line_replies_keep_their_lines() {
        let mut p = ReplyParser::new();
        let events = feed(&mut p, b"=3 play\ngenmove\nquit\n\n");
        assert_eq!(events, vec![ok(Some(3), "play\ngenmove\nquit")]);
    }

    #[test]
    fn failures_are_replies_with_success_false() {
        let mut p = ReplyParser::new();
        let events = feed(&mut p, b"?4 unknown command\n\n");
        assert_eq!(
            events,
            vec![Event::Reply(Reply {
                id: Some(4),
                success: false,
                text: "unknown command".into()
            })]
        );
    }

    #[test]
    fn crlf_line_ends_are_accepted() {
        let mut p = ReplyParser::new();
        assert_eq!(feed(&mut p, b"=1 D4\r\n\r\n"), vec![ok(Some(1), "D4")]);
        // A "blank" line of spaces also ends a reply.
        assert_eq!(feed(&mut p, b"=2 E5\n  \t\n"), vec![ok(Some(2), "E5")]);
    }

    #[test]
    fn stray_output_before_a_reply_is_set_aside() {
        let mut p = ReplyParser::new();
        let events = feed(&mut p, b"thinking...\nvisits 100\n=5 Q16\n\n");
        assert_eq!(
            events,
            vec![
                Event::Stray("thinking...".into()),
                Event::Stray("visits 100".into()),
                ok(Some(5), "Q16")
            ]
        );
        // Empty lines between replies are neither stray nor replies.
        assert!(feed(&mut p, b"\n\n\n").is_empty());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_not_fatal() {
        let mut p = ReplyParser::new();
        let events = feed(&mut p, b"\xff\xfe junk\x01\n=9 name \xc3\x28\n\n");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0], Event::Stray("\u{fffd}\u{fffd} junk".into()));
        assert_eq!(events[1], ok(Some(9), "name \u{fffd}("));
    }

    #[test]
    fn over_long_lines_are_cut() {
        let mut p = ReplyParser::new();
        let mut line = b"=1 ".to_vec();
        line.extend(std::iter::repeat_n(b'x', 3 * MAX_LINE));
        line.extend(b"\n\n");
        let events = feed(&mut p, &line);
        let Event::Reply(r) = &events[0] else {
            panic!("{events:?}")
        };
        assert!(r.text.len() < MAX_LINE);
    }
}
