//! The regular expressions llama.cpp's `-ot` / `--override-tensor` takes, matched as it matches
//! them (`std::regex_search` with the default ECMAScript grammar: a match anywhere in the tensor
//! name). The subset people write in these patterns: literals, `.`, escapes (`\.`, `\d`, `\w`,
//! `\s` and their negations), classes (`[0-9]`, `[^a]`), groups with alternation (`(up|down)`,
//! `(?:…)`), the quantifiers `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` (lazy forms accepted: for a
//! yes-or-no search they match the same names) and the anchors `^` and `$`. Anything else is
//! refused with the position and what was found, never guessed at.

use std::cell::Cell;

/// Longest pattern accepted, characters.
pub const MAX_PATTERN_CHARS: usize = 1000;

/// Matching steps one search may take before it is called too complex (a pattern such as
/// `(a*)*b` backtracks exponentially on a long name).
const MAX_STEPS: u32 = 1_000_000;

/// The largest count a `{m,n}` takes (tensor names are far shorter).
pub const MAX_COUNT: u32 = 1000;

/// Matching steps shared by every search of one placement (all tensors against all patterns).
pub const PLAN_STEPS: u32 = 5_000_000;

/// A count of matching steps shared by several searches, with its limit.
#[derive(Debug)]
pub struct StepBudget {
    used: Cell<u32>,
    limit: u32,
}

impl StepBudget {
    /// A budget of `limit` steps.
    pub fn new(limit: u32) -> StepBudget {
        StepBudget {
            used: Cell::new(0),
            limit,
        }
    }

    fn spend(&self) -> bool {
        let used = self.used.get().saturating_add(1);
        self.used.set(used);
        used <= self.limit
    }

    fn spent(&self) -> bool {
        self.used.get() > self.limit
    }
}

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorPattern {
    text: String,
    alternatives: Vec<Vec<Node>>,
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Char(char),
    Any,
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    Group(Vec<Vec<Node>>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
    Start,
    End,
}

/// Why a pattern cannot be compiled, or a search gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern.
    pub pattern: String,
    /// What is wrong, with the character position (0-based) where it applies.
    pub why: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the pattern '{}' {}", self.pattern, self.why)
    }
}

impl std::error::Error for PatternError {}

/// A member of a bracket class.
enum ClassAtom {
    Char(char),
    Set(Vec<(char, char)>),
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn fail<T>(&self, why: impl Into<String>) -> Result<T, PatternError> {
        Err(PatternError {
            pattern: self.text.into(),
            why: format!("{} (at character {})", why.into(), self.pos),
        })
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn alternatives(&mut self) -> Result<Vec<Vec<Node>>, PatternError> {
        let mut alts = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            alts.push(self.sequence()?);
        }
        Ok(alts)
    }

    fn sequence(&mut self) -> Result<Vec<Node>, PatternError> {
        let mut seq = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            seq.push(self.quantified(atom)?);
        }
        Ok(seq)
    }

    fn atom(&mut self) -> Result<Node, PatternError> {
        let c = self.peek().unwrap_or('\0');
        self.pos += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '(' => {
                if self.chars.get(self.pos..self.pos + 2) == Some(&['?', ':']) {
                    self.pos += 2;
                } else if self.peek() == Some('?') {
                    return self.fail("uses a group kind llama.cpp's patterns do not need ('(?')");
                }
                let alts = self.alternatives()?;
                if self.peek() != Some(')') {
                    return self.fail("has a '(' that is never closed");
                }
                self.pos += 1;
                Node::Group(alts)
            }
            ')' => return self.fail("has a ')' with no '('"),
            '[' => self.class()?,
            '\\' => self.escape(false)?,
            '*' | '+' | '?' | '{' => {
                self.pos -= 1;
                return self.fail(format!("has '{c}' with nothing before it to repeat"));
            }
            other => Node::Char(other),
        })
    }

    fn escape(&mut self, in_class: bool) -> Result<Node, PatternError> {
        let Some(c) = self.peek() else {
            return self.fail("ends in a lone '\\'");
        };
        self.pos += 1;
        let class = |ranges: &[(char, char)], negated| Node::Class {
            ranges: ranges.to_vec(),
            negated,
        };
        const DIGIT: &[(char, char)] = &[('0', '9')];
        const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
        const SPACE: &[(char, char)] = &[('\t', '\r'), (' ', ' ')];
        Ok(match c {
            'd' => class(DIGIT, false),
            'D' if !in_class => class(DIGIT, true),
            'w' => class(WORD, false),
            'W' if !in_class => class(WORD, true),
            's' => class(SPACE, false),
            'S' if !in_class => class(SPACE, true),
            't' => Node::Char('\t'),
            'n' => Node::Char('\n'),
            c if c.is_ascii_punctuation() => Node::Char(c),
            c => {
                return self.fail(format!(
                    "uses the escape '\\{c}', which is not supported here"
                ))
            }
        })
    }

    /// A bracket class after its `[`. As ECMAScript reads them: `[]` matches nothing, `[^]`
    /// any character; POSIX classes (`[:digit:]`) are refused rather than read as characters.
    fn class(&mut self) -> Result<Node, PatternError> {
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut ranges = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return self.fail("has a '[' that is never closed");
            };
            if c == ']' {
                self.pos += 1;
                break;
            }
            if c == '[' && matches!(self.chars.get(self.pos + 1), Some(':' | '.' | '=')) {
                return self
                    .fail("uses a POSIX class ('[:', '[.' or '[='), which is not supported here");
            }
            let lo = match self.class_atom()? {
                ClassAtom::Char(c) => c,
                ClassAtom::Set(r) => {
                    ranges.extend(r);
                    continue;
                }
            };
            let is_range =
                self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|n| *n != ']');
            if is_range {
                self.pos += 1;
                let ClassAtom::Char(hi) = self.class_atom()? else {
                    return self.fail("has a range that ends in a class like '\\d'");
                };
                if hi < lo {
                    return self.fail(format!("has the range '{lo}-{hi}' backwards"));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Node::Class { ranges, negated })
    }

    /// One member of a class: a character (an escape read as ECMAScript reads it), or an
    /// escaped set such as `\d`.
    fn class_atom(&mut self) -> Result<ClassAtom, PatternError> {
        let Some(c) = self.peek() else {
            return self.fail("has a '[' that is never closed");
        };
        self.pos += 1;
        if c != '\\' {
            return Ok(ClassAtom::Char(c));
        }
        match self.escape(true)? {
            Node::Class { ranges, .. } => Ok(ClassAtom::Set(ranges)),
            Node::Char(c) => Ok(ClassAtom::Char(c)),
            _ => self.fail("has an escape that is not a character or a set inside '[...]'"),
        }
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits.parse().ok()
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, PatternError> {
        if matches!(atom, Node::Start | Node::End) {
            return Ok(atom);
        }
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.pos += 1;
                let Some(min) = self.number() else {
                    return self.fail("has a '{' without a count (write '\\{' for the character)");
                };
                if min > MAX_COUNT {
                    return self.fail(format!("has a count above {MAX_COUNT}"));
                }
                let max = if self.peek() == Some(',') {
                    self.pos += 1;
                    if self.peek() == Some('}') {
                        None
                    } else {
                        match self.number() {
                            Some(m) if m > MAX_COUNT => {
                                return self.fail(format!("has a count above {MAX_COUNT}"))
                            }
                            Some(m) if m >= min => Some(m),
                            _ => return self.fail("has a '{m,n}' whose n is missing or below m"),
                        }
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return self.fail("has a '{' that is never closed");
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.pos += 1;
        if self.peek() == Some('?') {
            self.pos += 1;
        }
        if matches!(self.peek(), Some('*' | '+' | '{')) {
            return self.fail("repeats a repetition");
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }
}

struct Search<'a> {
    name: &'a [char],
    budget: &'a StepBudget,
}

impl Search<'_> {
    fn one(&self, node: &Node, pos: usize, k: &dyn Fn(usize) -> bool) -> bool {
        if !self.budget.spend() {
            return false;
        }
        let here = self.name.get(pos).copied();
        match node {
            Node::Char(c) => here == Some(*c) && k(pos + 1),
            Node::Any => here.is_some_and(|c| c != '\n' && c != '\r') && k(pos + 1),
            Node::Class { ranges, negated } => {
                here.is_some_and(|c| {
                    ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
                }) && k(pos + 1)
            }
            Node::Start => pos == 0 && k(pos),
            Node::End => pos == self.name.len() && k(pos),
            Node::Group(alts) => alts.iter().any(|seq| self.seq(seq, pos, k)),
            Node::Repeat { node, min, max } => self.repeat(node, *min, *max, 0, pos, k),
        }
    }

    fn seq(&self, seq: &[Node], pos: usize, k: &dyn Fn(usize) -> bool) -> bool {
        match seq.split_first() {
            None => k(pos),
            Some((first, rest)) => self.one(first, pos, &|p| self.seq(rest, p, k)),
        }
    }

    fn repeat(
        &self,
        node: &Node,
        min: u32,
        max: Option<u32>,
        done: u32,
        pos: usize,
        k: &dyn Fn(usize) -> bool,
    ) -> bool {
        let more = max.is_none_or(|m| done < m)
            && self.one(node, pos, &|p| {
                if p == pos {
                    // An empty iteration can stand for every iteration still required (so a
                    // large count costs no depth); past the minimum it adds nothing.
                    done < min && k(pos)
                } else {
                    self.repeat(node, min, max, done + 1, p, k)
                }
            });
        more || (done >= min && k(pos))
    }
}

impl TensorPattern {
    /// Compiles `text`; an empty pattern, one longer than [`MAX_PATTERN_CHARS`] or one outside
    /// the subset in the module doc is an error naming the position.
    pub fn new(text: &str) -> Result<TensorPattern, PatternError> {
        let mut p = Parser {
            chars: text.chars().collect(),
            pos: 0,
            text,
        };
        if p.chars.is_empty() {
            return p.fail("is empty");
        }
        if p.chars.len() > MAX_PATTERN_CHARS {
            return p.fail(format!("is longer than {MAX_PATTERN_CHARS} characters"));
        }
        let alternatives = p.alternatives()?;
        if p.pos < p.chars.len() {
            return p.fail("has a ')' with no '('");
        }
        Ok(TensorPattern {
            text: text.into(),
            alternatives,
        })
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the pattern matches anywhere in `name` (`std::regex_search`). A search that
    /// takes more than a million steps is an error rather than a hang.
    pub fn is_match(&self, name: &str) -> Result<bool, PatternError> {
        self.is_match_within(name, &StepBudget::new(MAX_STEPS))
    }

    /// [`TensorPattern::is_match`] spending from `budget`, shared with other searches: an error
    /// once it is spent.
    pub fn is_match_within(&self, name: &str, budget: &StepBudget) -> Result<bool, PatternError> {
        let chars: Vec<char> = name.chars().collect();
        let s = Search {
            name: &chars,
            budget,
        };
        let found = (0..=chars.len()).any(|start| {
            self.alternatives
                .iter()
                .any(|seq| s.seq(seq, start, &|_| true))
        });
        if budget.spent() {
            return Err(PatternError {
                pattern: self.text.clone(),
                why: "takes too long to match the tensor names: simplify its nested repetitions"
                    .into(),
            });
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, name: &str) -> bool {
        TensorPattern::new(p).unwrap().is_match(name).unwrap()
    }

    #[test]
    fn the_patterns_people_pass_to_override_tensor_match_as_llama_cpp_does() {
        let up = "blk.12.ffn_up_exps.weight";
        assert!(m("exps", up));
        assert!(m(r"\.ffn_.*_exps\.", up));
        assert!(m(r"ffn_(up|down|gate)_exps", up));
        assert!(m(r"blk\.(1[0-9]|2[0-3])\.ffn_.*_exps", up));
        assert!(
            !m(r"blk\.([0-9])\.ffn_.*_exps", up),
            "blk.1 is not blk.12's prefix here"
        );
        assert!(m(r"blk\.\d+\.ffn_up", up));
        assert!(m(r"^blk\.1[0-2]\.", up));
        assert!(!m(r"^ffn", up), "anchored at the start");
        assert!(m(r"weight$", up));
        assert!(!m(r"exps$", up));
        assert!(m(r"blk\.[^0]\d?\.ffn_up", up));
        assert!(m(r"blk\.\d{2}\.", up));
        assert!(!m(r"blk\.\d{3,}\.", up));
        assert!(m(r"blk\.\d{1,2}?\.", up));
        assert!(m(r"(?:up|down)_exps", up));
        assert!(!m("ffn_down_exps", up));
        // llama.cpp's own --n-cpu-moe pattern for block 12
        assert!(m(r"blk\.12\.ffn_(up|down|gate|gate_up)_exps", up));
        assert!(!m(r"blk\.1\.ffn_(up|down|gate|gate_up)_exps", up));
    }

    #[test]
    fn malformed_patterns_say_what_and_where() {
        for (p, says) in [
            ("", "empty"),
            ("(exps", "never closed"),
            ("exps)", "no '('"),
            ("*exps", "nothing before it"),
            ("[0-9", "never closed"),
            (r"blk\", "lone"),
            (r"\q", "not supported"),
            ("[9-0]", "backwards"),
            ("a{2,1}", "below m"),
            ("a**", "repeats a repetition"),
            ("(?=x)", "group kind"),
        ] {
            let e = TensorPattern::new(p).unwrap_err().to_string();
            assert!(e.contains(says), "{p}: {e}");
        }
        assert!(TensorPattern::new(&"a".repeat(MAX_PATTERN_CHARS + 1)).is_err());
    }

    #[test]
    fn classes_read_as_ecmascript_reads_them() {
        assert!(!m("x[]", "x]"), "[] matches nothing");
        assert!(m("x[^]", "xq"), "[^] matches any character");
        assert!(m(r"[!-\.]", "-"));
        assert!(!m(r"[!-\.]", "5"), "the range ends at the escaped '.'");
        assert!(m(r"blk\.[\d]+\.", "blk.12.ffn"));
        let e = TensorPattern::new("[[:digit:]]").unwrap_err().to_string();
        assert!(e.contains("POSIX class"), "{e}");
        assert!(TensorPattern::new("a{1001}").is_err());
    }

    #[test]
    fn an_empty_repetition_with_a_large_count_neither_overflows_nor_loops() {
        assert!(m("(a?){1000}b", "b"));
        assert!(m("x(a*){999}", "x"));
        let budget = StepBudget::new(50);
        let p = TensorPattern::new("exps").unwrap();
        assert_eq!(p.is_match_within("blk.0.exps", &budget), Ok(true));
        let name = "blk.0.ffn_up.weight ".repeat(10);
        assert!(
            p.is_match_within(&name, &budget).is_err(),
            "a shared budget runs out"
        );
    }

    #[test]
    fn pathological_backtracking_stops_with_an_error_not_a_hang() {
        let p = TensorPattern::new("(a*)*(b|c)*x").unwrap();
        let name = "a".repeat(60);
        assert!(p.is_match(&name).is_err());
        let nested = TensorPattern::new("(a|aa)+$").unwrap();
        assert!(nested.is_match("aaaa").unwrap());
    }
}
