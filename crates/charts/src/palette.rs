//! The one palette (Okabe–Ito, colour-blind safe), used by the CSS (as custom properties generated
//! here) and by the plotters charts, in light and dark variants.

use bitbudget_math::memory::Part;

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, lower-case hex.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Colours of one theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Page background.
    pub background: Rgb,
    /// Card and chart background.
    pub surface: Rgb,
    /// Body text.
    pub text: Rgb,
    /// Secondary text, axes and grid.
    pub muted: Rgb,
    /// Sign bits.
    pub sign: Rgb,
    /// Exponent bits.
    pub exponent: Rgb,
    /// Mantissa bits.
    pub mantissa: Rgb,
    /// Integer bits.
    pub integer: Rgb,
    /// The value the user typed, highlights and focus.
    pub accent: Rgb,
    /// Representable values on number lines.
    pub grid_value: Rgb,
    /// Overflow and errors.
    pub danger: Rgb,
    /// Subnormal and underflow regions.
    pub caution: Rgb,
    /// Memory: weights.
    pub weights: Rgb,
    /// Memory: gradients.
    pub gradients: Rgb,
    /// Memory: optimizer states.
    pub optimizer: Rgb,
    /// Memory: activations.
    pub activations: Rgb,
    /// Memory: KV cache.
    pub kv_cache: Rgb,
    /// Memory: overhead.
    pub overhead: Rgb,
}

impl Theme {
    /// The colour of a memory part.
    pub const fn part(&self, part: Part) -> Rgb {
        match part {
            Part::Weights => self.weights,
            Part::Gradients => self.gradients,
            Part::Optimizer => self.optimizer,
            Part::Activations => self.activations,
            Part::KvCache => self.kv_cache,
            Part::Overhead => self.overhead,
        }
    }
}

/// The light theme.
pub const LIGHT: Theme = Theme {
    background: Rgb(0xfa, 0xfa, 0xf7),
    surface: Rgb(0xff, 0xff, 0xff),
    text: Rgb(0x1d, 0x1d, 0x1f),
    muted: Rgb(0x5f, 0x63, 0x68),
    sign: Rgb(0xcc, 0x79, 0xa7),
    exponent: Rgb(0x56, 0xb4, 0xe9),
    mantissa: Rgb(0xe6, 0x9f, 0x00),
    integer: Rgb(0x00, 0x9e, 0x73),
    accent: Rgb(0xd5, 0x5e, 0x00),
    grid_value: Rgb(0x00, 0x72, 0xb2),
    danger: Rgb(0xd5, 0x5e, 0x00),
    caution: Rgb(0xf0, 0xe4, 0x42),
    weights: Rgb(0x00, 0x72, 0xb2),
    gradients: Rgb(0xe6, 0x9f, 0x00),
    optimizer: Rgb(0x00, 0x9e, 0x73),
    activations: Rgb(0xcc, 0x79, 0xa7),
    kv_cache: Rgb(0x56, 0xb4, 0xe9),
    overhead: Rgb(0x99, 0x99, 0x99),
};

/// The dark theme: the same hues, lifted for contrast on a dark surface.
pub const DARK: Theme = Theme {
    background: Rgb(0x15, 0x16, 0x18),
    surface: Rgb(0x1f, 0x21, 0x24),
    text: Rgb(0xe8, 0xe8, 0xe6),
    muted: Rgb(0xa0, 0xa4, 0xaa),
    sign: Rgb(0xd9, 0x8c, 0xb8),
    exponent: Rgb(0x6c, 0xc0, 0xf0),
    mantissa: Rgb(0xf0, 0xb0, 0x2a),
    integer: Rgb(0x2b, 0xb8, 0x8e),
    accent: Rgb(0xff, 0x8a, 0x3d),
    grid_value: Rgb(0x6c, 0xc0, 0xf0),
    danger: Rgb(0xff, 0x8a, 0x3d),
    caution: Rgb(0xb8, 0xac, 0x20),
    weights: Rgb(0x3a, 0x9a, 0xd9),
    gradients: Rgb(0xf0, 0xb0, 0x2a),
    optimizer: Rgb(0x2b, 0xb8, 0x8e),
    activations: Rgb(0xd9, 0x8c, 0xb8),
    kv_cache: Rgb(0x6c, 0xc0, 0xf0),
    overhead: Rgb(0xa0, 0xa4, 0xaa),
};

/// The theme as CSS custom properties, `("--bg", "#fafaf7")` and so on, plus `color-scheme`
/// (`light` or `dark`, from the background's lightness), for setting on the root element through
/// the CSSOM (which a strict Content-Security-Policy allows, unlike a `<style>` element).
pub fn custom_properties(t: &Theme) -> Vec<(String, String)> {
    let Rgb(r, g, b) = t.background;
    let dark = u32::from(r) + u32::from(g) + u32::from(b) < 3 * 128;
    named_colours(t)
        .iter()
        .map(|(name, c)| (format!("--{name}"), c.hex()))
        .chain([(
            "color-scheme".to_string(),
            if dark { "dark" } else { "light" }.to_string(),
        )])
        .collect()
}

fn variables(t: &Theme) -> String {
    named_colours(t)
        .iter()
        .map(|(name, c)| format!("--{name}:{};", c.hex()))
        .collect()
}

fn named_colours(t: &Theme) -> [(&'static str, Rgb); 18] {
    [
        ("bg", t.background),
        ("surface", t.surface),
        ("text", t.text),
        ("muted", t.muted),
        ("sign", t.sign),
        ("exponent", t.exponent),
        ("mantissa", t.mantissa),
        ("integer", t.integer),
        ("accent", t.accent),
        ("grid-value", t.grid_value),
        ("danger", t.danger),
        ("caution", t.caution),
        ("weights", t.weights),
        ("gradients", t.gradients),
        ("optimizer", t.optimizer),
        ("activations", t.activations),
        ("kv-cache", t.kv_cache),
        ("overhead", t.overhead),
    ]
}

/// The first line of `assets/palette.css`, which holds [`stylesheet`] after it.
pub const PALETTE_CSS_HEADER: &str =
    "/* Generated from crates/charts/src/palette.rs (stylesheet()); \
     a test there checks it (BITBUDGET_WRITE_PALETTE=1 rewrites it). The page has these colours \
     before its wasm runs, light or dark as the system prefers. */\n";

/// CSS custom properties for both themes; dark follows `prefers-color-scheme`.
pub fn stylesheet() -> String {
    format!(
        ":root{{{}color-scheme:light dark;}}@media (prefers-color-scheme: dark){{:root{{{}}}}}",
        variables(&LIGHT),
        variables(&DARK)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_palette_css_is_the_palette() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/palette.css");
        let want = format!("{PALETTE_CSS_HEADER}{}\n", stylesheet());
        if std::env::var_os("BITBUDGET_WRITE_PALETTE").is_some() {
            std::fs::write(path, &want).expect("assets/palette.css written");
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "assets/palette.css is not the palette: run \
             `BITBUDGET_WRITE_PALETTE=1 cargo test -p bitbudget-charts assets_palette_css`"
        );
    }

    #[test]
    fn stylesheet_defines_both_themes() {
        let css = stylesheet();
        assert!(css.contains("--sign:#cc79a7;"));
        assert!(css.contains("prefers-color-scheme: dark"));
    }

    #[test]
    fn custom_properties_name_every_colour_and_the_scheme() {
        let light = custom_properties(&LIGHT);
        let dark = custom_properties(&DARK);
        assert_eq!(light.len(), 19);
        assert!(light.contains(&("--sign".into(), "#cc79a7".into())));
        assert!(light.contains(&("color-scheme".into(), "light".into())));
        assert!(dark.contains(&("color-scheme".into(), "dark".into())));
        assert!(light
            .iter()
            .all(|(k, _)| stylesheet().contains(&format!("{k}:"))));
    }
}
