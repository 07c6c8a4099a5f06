//! A small scanner that finds the first game tree of a collection, checks its syntax, and
//! records where each property of the main line starts.
//!
//! `sgf-parse` reads the values, but it reports neither positions nor where a syntax error is.
//! This scanner runs first, on the whole text, and accepts a subset of what `sgf-parse`
//! accepts (the SGF grammar, minus its lexer's leniencies), so that every file it passes reads
//! into the same tree, node for node and property for property.

/// One property of a main-line node.
#[derive(Debug)]
pub(crate) struct ScanProp {
    /// The identifier as `sgf-parse` sees it: its upper-case letters (FF\[3\] `CoPyright` is `CP`).
    pub ident: String,
    /// Byte offset of the identifier.
    pub pos: usize,
    /// The values, with escapes removed as `sgf-parse` removes them.
    pub values: Vec<String>,
}

/// One node of the main line.
#[derive(Debug)]
pub(crate) struct ScanNode {
    /// Byte offset of its `;`.
    pub pos: usize,
    pub props: Vec<ScanProp>,
}

/// The first game tree: its extent and its main line (first child at every variation).
#[derive(Debug)]
pub(crate) struct Scan {
    /// Byte offset of the tree's `(`.
    pub start: usize,
    /// Byte offset just past the tree's `)`.
    pub end: usize,
    /// The main line, root first; never empty.
    pub main: Vec<ScanNode>,
}

/// Why the text is not a game tree.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// No `(` followed by `;` anywhere.
    NoGame,
    /// Bad syntax at this byte offset.
    Syntax { pos: usize, message: String },
}

/// A game tree being read: where its nodes go and whether it is on the main line.
struct Frame {
    /// The last node of this tree's sequence so far.
    last: bool,
    /// Whether this tree is the first variation at every level.
    main: bool,
    /// Whether a variation has been opened after the sequence.
    has_variations: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    Open,
    Close,
    Node,
    Property,
}

/// Scans the first game tree of `text`.
pub(crate) fn scan(text: &str) -> Result<Scan, ScanError> {
    let bytes = text.as_bytes();
    let start = find_start(bytes)?;
    let mut main = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut prev = Prev::Open;
    // B and W properties read so far on the main line: for "in move N" in messages.
    let mut moves = 0usize;
    let mut i = start;
    loop {
        let Some(&b) = bytes.get(i) else {
            return Err(syntax(
                i,
                format!(
                    "the file ends inside a game tree: missing ')'{}",
                    after(moves)
                ),
            ));
        };
        match b {
            b'(' => {
                let frame = match stack.last_mut() {
                    None => Frame {
                        last: false,
                        main: true,
                        has_variations: false,
                    },
                    Some(top) => {
                        if !top.last {
                            return Err(syntax(
                                i,
                                format!("'(' must be followed by ';'{}", after(moves)),
                            ));
                        }
                        let main = top.main && !top.has_variations;
                        top.has_variations = true;
                        Frame {
                            last: false,
                            main,
                            has_variations: false,
                        }
                    }
                };
                stack.push(frame);
                prev = Prev::Open;
                i += 1;
            }
            b')' => {
                let Some(frame) = stack.pop() else {
                    unreachable!("the scan stops when the first tree closes");
                };
                if !frame.last {
                    return Err(syntax(
                        i,
                        format!(
                            "empty game tree: '(' must be followed by ';'{}",
                            after(moves)
                        ),
                    ));
                }
                prev = Prev::Close;
                i += 1;
                if stack.is_empty() {
                    return Ok(Scan {
                        start,
                        end: i,
                        main,
                    });
                }
            }
            b';' => {
                let Some(top) = stack.last_mut() else {
                    unreachable!("the scan starts at '('");
                };
                if top.has_variations {
                    return Err(syntax(
                        i,
                        format!(
                            "node after variations: once a '(' has opened a variation, \
                             only more variations may follow{}",
                            after(moves)
                        ),
                    ));
                }
                top.last = true;
                if top.main {
                    main.push(ScanNode {
                        pos: i,
                        props: Vec::new(),
                    });
                }
                prev = Prev::Node;
                i += 1;
            }
            b if b.is_ascii_alphabetic() => {
                match prev {
                    Prev::Open => {
                        return Err(syntax(
                            i,
                            format!("property outside a node: missing ';'{}", after(moves)),
                        ))
                    }
                    Prev::Close => {
                        return Err(syntax(
                            i,
                            format!("property after a variation{}", after(moves)),
                        ))
                    }
                    Prev::Node | Prev::Property => {}
                }
                let on_main = stack.last().is_some_and(|f| f.main);
                let (prop, next) = property(text, i, on_main, &mut moves)?;
                if on_main {
                    if let Some(node) = main.last_mut() {
                        node.props.push(prop);
                    }
                }
                prev = Prev::Property;
                i = next;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let c = text[i..].chars().next().unwrap_or('?');
                return Err(syntax(
                    i,
                    format!("unexpected character {c:?}{}", after(moves)),
                ));
            }
        }
    }
}

/// Reads the property whose identifier starts at `pos`; returns it and the offset after it.
fn property(
    text: &str,
    pos: usize,
    on_main: bool,
    moves: &mut usize,
) -> Result<(ScanProp, usize), ScanError> {
    let bytes = text.as_bytes();
    let mut i = pos;
    while bytes.get(i).is_some_and(u8::is_ascii_alphabetic) {
        i += 1;
    }
    let raw = &text[pos..i];
    let ident: String = raw.chars().filter(char::is_ascii_uppercase).collect();
    if ident.is_empty() {
        return Err(syntax(
            pos,
            format!(
                "property {} has no upper-case letter{}",
                clip(raw),
                after(*moves)
            ),
        ));
    }
    i = skip_whitespace(bytes, i);
    if bytes.get(i) != Some(&b'[') {
        return Err(syntax(
            i,
            format!(
                "property {} has no value: expected '['{}",
                clip(raw),
                after(*moves)
            ),
        ));
    }
    let is_move = on_main && (ident == "B" || ident == "W");
    let points = matches!(ident.as_str(), "B" | "W" | "AB" | "AW" | "AE");
    if is_move {
        *moves += 1;
    }
    let mut values = Vec::new();
    while bytes.get(i) == Some(&b'[') {
        let open = i;
        i += 1;
        let mut value = Vec::new();
        let context = || {
            if is_move {
                format!(" (in move {moves}, {ident})")
            } else {
                format!(" (in {ident}){}", after(*moves))
            }
        };
        loop {
            match bytes.get(i) {
                None => {
                    return Err(syntax(
                        open,
                        format!("'[' is never closed by ']'{}", context()),
                    ));
                }
                // A point never holds '[': the ']' of this value is missing.
                Some(b'[') if points => {
                    return Err(syntax(
                        open,
                        format!("'[' is not closed by ']' before the next '['{}", context()),
                    ));
                }
                Some(b']') => {
                    i += 1;
                    break;
                }
                Some(b'\\') => {
                    // The escaped byte is taken as it is; if it starts a multi-byte character,
                    // the rest of that character follows as ordinary bytes.
                    if let Some(&next) = bytes.get(i + 1) {
                        value.push(next);
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
                Some(&c) => {
                    value.push(c);
                    i += 1;
                }
            }
        }
        if on_main {
            values.push(String::from_utf8_lossy(&value).into_owned());
        }
        i = skip_whitespace(bytes, i);
    }
    Ok((ScanProp { ident, pos, values }, i))
}

/// The offset of the first `(` that is followed (after white space) by `;`.
fn find_start(bytes: &[u8]) -> Result<usize, ScanError> {
    let mut first_paren = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'(' {
            first_paren.get_or_insert(i);
            if bytes.get(skip_whitespace(bytes, i + 1)) == Some(&b';') {
                return Ok(i);
            }
        }
    }
    match first_paren {
        Some(pos) => Err(syntax(
            pos,
            "no game tree: '(' must be followed by ';'".to_string(),
        )),
        None => Err(ScanError::NoGame),
    }
}

/// White space as `sgf-parse` skips it (ASCII, without vertical tab).
fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn syntax(pos: usize, message: String) -> ScanError {
    ScanError::Syntax { pos, message }
}

/// " (after move N)" once the main line has moves.
fn after(moves: usize) -> String {
    if moves == 0 {
        String::new()
    } else {
        format!(" (after move {moves})")
    }
}

/// At most 20 characters of `s`, for messages.
pub(crate) fn clip(s: &str) -> String {
    let mut chars = s.chars();
    let head: String = chars
        .by_ref()
        .take(20)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(scan: &Scan) -> Vec<Vec<&str>> {
        scan.main
            .iter()
            .map(|n| n.props.iter().map(|p| p.ident.as_str()).collect())
            .collect()
    }

    #[test]
    fn main_line_follows_first_variations() {
        let text = "junk (\n;GM[1]SZ[9];B[aa](;W[bb];B[cc](;W[dd])(;W[ee]))(;W[ff];B[gg]))";
        let scan = scan(text).unwrap();
        assert_eq!(scan.start, 5);
        assert_eq!(scan.end, text.len());
        assert_eq!(
            idents(&scan),
            [vec!["GM", "SZ"], vec!["B"], vec!["W"], vec!["B"], vec!["W"]]
        );
        assert_eq!(scan.main[4].props[0].values, ["dd"]);
    }

    #[test]
    fn escapes_and_mixed_case_identifiers() {
        let scan = scan("(;CoPyright[a\\]b\\\\c] C [x] [y])").unwrap();
        assert_eq!(idents(&scan), [vec!["CP", "C"]]);
        assert_eq!(scan.main[0].props[0].values, ["a]b\\c"]);
        assert_eq!(scan.main[0].props[1].values, ["x", "y"]);
    }

    #[test]
    fn errors_have_positions() {
        let err = |t: &str| match scan(t) {
            Err(ScanError::Syntax { pos, message }) => (pos, message),
            other => panic!("{other:?}"),
        };
        assert_eq!(scan("no game here").unwrap_err(), ScanError::NoGame);
        assert_eq!(err("(;B[aa];W[bb").0, 9);
        assert!(err("(;B[aa];W[bb").1.contains("in move 2"));
        assert_eq!(err("(;B[aa];W[bb]").0, 13);
        assert!(err("(;B[aa](;W[bb]);B[cc])")
            .1
            .contains("node after variations"));
        assert!(err("(;B[aa]()))").1.contains("empty game tree"));
        assert!(err("(;b[aa])").1.contains("upper-case"));
        assert!(err("(;B[aa]X)").1.contains("no value"));
        assert!(err("(;B[aa]é)").1.contains("unexpected character"));
        assert!(err("(B[aa])").1.contains("must be followed by ';'"));
        assert!(err("(;B[aa](B[bb]))").1.contains("outside a node"));
        assert!(err("(;B[aa](;W[bb])W[cc])").1.contains("after a variation"));
    }
}
