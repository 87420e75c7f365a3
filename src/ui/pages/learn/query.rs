//! Typed URL state of the Learn page: which chapter is open (`?tab=learn&step=4`).

use crate::ui::shell::query::PageQuery;
use crate::ui::shell::url::Tab;
use std::fmt;
use std::str::FromStr;

/// A chapter number of the Learn page, 1 to [`Chapter::COUNT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Chapter(u8);

impl Chapter {
    /// How many chapters there are.
    pub const COUNT: u8 = 16;

    /// The first chapter.
    pub const FIRST: Chapter = Chapter(1);

    /// Chapter `n`, if 1 ≤ n ≤ [`Chapter::COUNT`].
    pub const fn new(n: u8) -> Option<Chapter> {
        if n >= 1 && n <= Self::COUNT {
            Some(Chapter(n))
        } else {
            None
        }
    }

    /// The chapter's number, 1-based.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The next chapter, or `None` after the last.
    pub const fn next(self) -> Option<Chapter> {
        Chapter::new(self.0 + 1)
    }

    /// The previous chapter, or `None` before the first.
    pub const fn prev(self) -> Option<Chapter> {
        Chapter::new(self.0.saturating_sub(1))
    }

    /// Every chapter in order.
    pub fn all() -> impl Iterator<Item = Chapter> {
        (1..=Self::COUNT).map(Chapter)
    }
}

impl Default for Chapter {
    fn default() -> Self {
        Chapter::FIRST
    }
}

impl fmt::Display for Chapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Chapter {
    type Err = String;

    /// A whole number from 1 to 13; anything else says which numbers exist.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.trim()
            .parse::<u8>()
            .ok()
            .and_then(Chapter::new)
            .ok_or_else(|| {
                format!(
                    "step '{s}' is not a chapter (1 to {}): showing chapter 1",
                    Chapter::COUNT
                )
            })
    }
}

/// The query string (with `?`) that opens `chapter` on the Learn page, embedded or not.
pub fn learn_query_string(chapter: Chapter, embed: bool) -> String {
    let embed = if embed { "&embed=1" } else { "" };
    format!("?tab=learn&step={chapter}{embed}")
}

impl PageQuery for Chapter {
    const TAB: Tab = Tab::Learn;

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        (key == "step").then(|| value.parse().map(|c| *self = c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn chapters_parse_from_1_to_the_last_and_nothing_else() {
        assert_eq!("4".parse::<Chapter>().unwrap().number(), 4);
        let last = Chapter::COUNT.to_string();
        assert_eq!(last.parse::<Chapter>().unwrap().next(), None);
        assert_eq!(Chapter::FIRST.prev(), None);
        let past = (Chapter::COUNT + 1).to_string();
        for bad in ["0", past.as_str(), "-1", "x", "", "1e3", "4.5"] {
            let e = bad.parse::<Chapter>().unwrap_err();
            assert!(e.contains("showing chapter 1"), "{bad}: {e}");
        }
        assert_eq!(Chapter::all().count(), Chapter::COUNT as usize);
        assert_eq!(
            learn_query_string(Chapter::new(3).unwrap(), true),
            "?tab=learn&step=3&embed=1"
        );
    }
}
