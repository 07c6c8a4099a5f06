//! Reading a setting's word as one of a few values: the one helper every `FromStr` of a
//! named choice uses (ko rules, presets, protocols, policies, formats).

/// The value whose word is `text`, ignoring ASCII case and surrounding white space; `None`
/// when it names none of `choices` (a word may name the same value as another: aliases).
///
/// ```
/// use goref_rules::words::one_of;
///
/// let choices = [("fixed", 1), ("free", 2), ("f", 1)];
/// assert_eq!(one_of(" Free ", &choices), Some(2));
/// assert_eq!(one_of("F", &choices), Some(1));
/// assert_eq!(one_of("fixe", &choices), None);
/// ```
#[must_use]
pub fn one_of<T: Copy>(text: &str, choices: &[(&str, T)]) -> Option<T> {
    let text = text.trim();
    choices
        .iter()
        .find(|(word, _)| word.eq_ignore_ascii_case(text))
        .map(|&(_, value)| value)
}
