//! Values with stable names in CLI arguments, URL parameters and files: enums' text form once
//! ([`name_text!`]), and the one reading of an on/off value ([`parse_flag`]).

/// Implements `Display` and `FromStr` for an enum `$ty` that has `ALL` (an array or slice of
/// every value) and `const fn name(self) -> &'static str`: `Display` writes the name; `FromStr`
/// accepts a name ignoring case and surrounding spaces and taking `_` and `-` as the same
/// (`Q4_K`, `mxfp8_e4m3`), and otherwise returns `Err($refuse(text))` with the text as given, so
/// each type words its own refusal.
///
/// ```
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum Side { Left, Right }
/// impl Side {
///     const ALL: [Side; 2] = [Side::Left, Side::Right];
///     const fn name(self) -> &'static str {
///         match self { Side::Left => "left", Side::Right => "right" }
///     }
/// }
/// bitbudget_math::name_text!(Side, String, |s: &str| format!("no side '{s}'"));
/// assert_eq!(" Right ".parse::<Side>(), Ok(Side::Right));
/// assert_eq!("RIGHT".parse::<Side>(), Ok(Side::Right));
/// assert_eq!("up".parse::<Side>(), Err("no side 'up'".to_string()));
/// assert_eq!(Side::Left.to_string(), "left");
/// ```
#[macro_export]
macro_rules! name_text {
    ($ty:ty, $err:ty, $refuse:expr) => {
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $err;

            fn from_str(text: &str) -> ::std::result::Result<Self, Self::Err> {
                let fold = |t: &str| t.trim().to_ascii_lowercase().replace('_', "-");
                let wanted = fold(text);
                let all: &[$ty] = &Self::ALL;
                all.iter()
                    .copied()
                    .find(|v| fold(v.name()) == wanted)
                    .ok_or_else(|| ($refuse)(text))
            }
        }
    };
}

/// Declares a `Copy` enum whose values have stable names (`ALL` in menu order, `name()`, and
/// [`name_text!`]'s `Display`/`FromStr`, refusing unknown text with "unknown <type> 'x'; expected
/// one of ..."). Each variant is written `Variant = "name"` with its doc comment.
macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in menu order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name used by the CLI and URLs.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        $crate::name_text!($name, String, |s: &str| {
            let names: Vec<&str> = $name::ALL.iter().map(|v| v.name()).collect();
            format!("unknown {} '{}'; expected one of {}", stringify!($name).to_ascii_lowercase(), s, names.join(", "))
        });
    };
}
pub(crate) use named_enum;

/// Reads an on/off value as the URL, the CLI's option table and pasted settings all do: `1`,
/// `true`, `yes` or nothing at all (a bare `&embed`) are on; `0`, `false` or `no` are off, in any
/// case and with surrounding spaces. Anything else is `None`, for the caller to word its refusal.
pub fn parse_flag(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod flag_tests {
    use super::parse_flag;

    #[test]
    fn every_spelling_of_on_and_off_is_read_and_others_are_refused() {
        for on in ["1", "true", "YES", " yes ", ""] {
            assert_eq!(parse_flag(on), Some(true), "{on:?}");
        }
        for off in ["0", "false", "No", " FALSE "] {
            assert_eq!(parse_flag(off), Some(false), "{off:?}");
        }
        for bad in ["2", "maybe", "on", "y"] {
            assert_eq!(parse_flag(bad), None, "{bad:?}");
        }
    }
}
