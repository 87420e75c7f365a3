//! Browser tests of the Bits page in headless Chromium: type a value, click a bit, change the
//! format, and check what is displayed.

use super::common::*;
use bitbudget_math::format::FormatId;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn typing_a_value_updates_every_format() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    assert_text_is(&root, "stored-bf16", "0.10009765625");
    assert_text_is(&root, "formula-bf16", "(-1)^0 × 2^(123-127) × 1.6015625");
    type_into(&root, "value-input", "-2.5");
    settle().await;
    assert_text_is(&root, "stored-f16", "-2.5");
    assert_text_is(&root, "abs-error-f16", "0 (exact)");
    assert_eq!(text(&root, "stored-int8"), "-2", "INT8 rounds ties to even");
    assert_text_is(&root, "stored-f4e2m1", "-2");
    type_into(&root, "value-input", "1000");
    settle().await;
    assert_text_is(&root, "stored-f8e4m3", "NaN");
    assert_text_is(&root, "stored-f8e5m2", "1024");
}

#[wasm_bindgen_test]
async fn clicking_a_bit_flips_it_and_rewrites_the_value() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    by_testid(&root, "bit-bf16-0").click();
    settle().await;
    assert_text_is(&root, "stored-bf16", "-0.10009765625");
    assert_text_is(&root, "hex-bf16", "0xbdcd");
    let input: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "value-input"));
    assert_eq!(input.value(), "0xbdcd");
    // The last mantissa bit of 0x3dcd is 1: clearing it gives 0x3dcc in every other format too.
    by_testid(&root, "bit-bf16-0").click();
    by_testid(&root, "bit-bf16-15").click();
    settle().await;
    assert_text_is(&root, "stored-f32", "0.099609375");
}

#[wasm_bindgen_test]
async fn arrow_keys_move_between_bits() {
    let (root, _app) = mount_bits("1", FormatId::F16);
    settle().await;
    let first = by_testid(&root, "bit-f16-0");
    first.focus().unwrap();
    press(&root, "bit-f16-0", "ArrowRight");
    let active = focused();
    assert_eq!(
        active.get_attribute("data-testid").as_deref(),
        Some("bit-f16-1")
    );
    assert_eq!(
        active.get_attribute("aria-pressed").as_deref(),
        Some("false"),
        "1.0 in FP16 is 0 01111 0000000000: the top exponent bit is clear"
    );
}

#[wasm_bindgen_test]
async fn changing_the_format_redraws_the_number_line() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    let (before, colours) = canvas_fingerprint(&root, "number-line");
    assert!(colours >= 4, "the number line is blank ({colours} colours)");
    by_testid(&root, "select-f8e4m3").click();
    settle().await;
    let after = redrawn(&root, "number-line", before).await;
    assert_ne!(before, after, "the canvas did not change");
    assert!(by_testid(&root, "card-f8e4m3")
        .class_list()
        .contains("selected"));
    type_into(&root, "value-input", "0x7e");
    settle().await;
    assert_eq!(
        text(&root, "stored-f16"),
        "448",
        "0x7e is read as an E4M3 pattern"
    );
}

#[wasm_bindgen_test]
async fn invalid_text_shows_why_and_keeps_the_last_value() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    type_into(&root, "value-input", "banana");
    settle().await;
    assert_text_has(&root, "value-error", "not a number");
    assert_text_is(&root, "stored-bf16", "0.10009765625");
    type_into(&root, "value-input", "1e400");
    settle().await;
    assert_text_is(&root, "stored-f32", "+inf");
}

#[wasm_bindgen_test]
async fn the_heading_names_the_selected_format() {
    let (root, _app) = mount_bits("0.1", FormatId::F16);
    settle().await;
    assert_text_is(&root, "bits-title", "What does a number look like in FP16?");
    by_testid(&root, "select-int8").click();
    settle().await;
    assert_text_is(&root, "bits-title", "What does a number look like in INT8?");
}

/// The names under the bit groups of `id`'s card.
fn field_labels(root: &web_sys::HtmlElement, id: &str) -> Vec<String> {
    let labels = by_testid(root, &format!("card-{id}"))
        .query_selector_all(".field-label [data-term]")
        .unwrap();
    (0..labels.length())
        .map(|i| {
            let label: web_sys::Element =
                wasm_bindgen::JsCast::unchecked_into(labels.item(i).unwrap());
            label.get_attribute("data-term").unwrap_or_default()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn unsigned_integers_are_labelled_unsigned_not_twos_complement() {
    let (root, _app) = mount_bits("5", FormatId::Bf16);
    settle().await;
    assert_eq!(field_labels(&root, "uint8"), ["unsigned"]);
    assert_eq!(field_labels(&root, "int8"), ["two's complement"]);
    let facts = text(&root, "facts-uint8");
    assert_has(&facts, "unsigned");
}

#[wasm_bindgen_test]
async fn a_fraction_in_an_integer_format_says_integers_need_a_scale() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    let note = text(&root, "note-int8");
    assert_has(&note, "whole numbers");
    assert_has(&note, "scale");
    let link = by_testid(&root, "note-int8")
        .query_selector("a")
        .unwrap()
        .expect("a link to the Quantize page");
    assert_eq!(link.get_attribute("href").as_deref(), Some("?tab=quant"));
    type_into(&root, "value-input", "3");
    settle().await;
    assert!(!present(&root, "note-int8"), "3 is stored exactly");
    type_into(&root, "value-input", "inf");
    settle().await;
    let note = by_testid(&root, "note-int8");
    assert!(
        note.text_content().unwrap().contains("no infinity"),
        "{:?}",
        note.text_content()
    );
    assert!(
        note.query_selector("a").unwrap().is_none(),
        "a clamped infinity is no case for a scale"
    );
}

#[wasm_bindgen_test]
async fn jargon_is_explained_on_hover_and_keyboard_focus() {
    let (root, _app) = mount_bits("1e400", FormatId::F32);
    settle().await;
    let term = root
        .query_selector("[data-term='binary64']")
        .unwrap()
        .expect("binary64 is marked as a term");
    assert_eq!(term.get_attribute("tabindex").as_deref(), Some("0"));
    let tip = term.get_attribute("data-tip").unwrap_or_default();
    assert_has(&tip, "64-bit");
    let described = term.get_attribute("aria-describedby").unwrap();
    let tip_el = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .get_element_by_id(&described)
        .expect("the explanation is in the page for screen readers");
    assert!(tip_el.text_content().unwrap().contains("64-bit"));
    for word in ["subnormal", "epsilon", "mantissa"] {
        assert!(
            root.query_selector(&format!("[data-term='{word}']"))
                .unwrap()
                .is_some(),
            "{word} is not explained"
        );
    }
}

#[wasm_bindgen_test]
async fn bit_field_labels_are_never_cut_on_a_phone() {
    load_css();
    for width in ["300px", "390px"] {
        let (root, _app) = mount_bits("0.1", FormatId::F32);
        root.style().set_property("width", width).unwrap();
        settle().await;
        let labels = root
            .query_selector_all(".format-card .field-label")
            .unwrap();
        assert!(labels.length() >= 24, "every format's fields have labels");
        for i in 0..labels.length() {
            let label: web_sys::HtmlElement =
                wasm_bindgen::JsCast::unchecked_into(labels.item(i).unwrap());
            let text = label.text_content().unwrap_or_default();
            assert_not_cut(&label, &format!("at {width} '{text}'"));
        }
        root.remove();
    }
}

/// The scaled-value view: 0.1 in MXFP8 with the block's amax 0.1 is E4M3 code 416 under the E8M0
/// scale 2^-12 (byte 115); NVFP4 shows its unsigned E4M3 scale and tensor scale; a bad amax says
/// why.
#[wasm_bindgen_test]
async fn the_scaled_view_shows_code_block_scale_and_tensor_scale() {
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    assert_text_has(&root, "scaled-scale-bits", "01110011");
    assert_text_has(
        &root,
        "scaled-equation",
        "× 2^-12 (E8M0 block scale) = 0.1015625",
    );
    choose(&root, "scaled-format", "nvfp4");
    settle().await;
    type_into(&root, "scaled-block-amax", "6");
    type_into(&root, "scaled-tensor-amax", "2688");
    settle().await;
    assert_text_has(&root, "scaled-scale-bits", "0 0111 000");
    assert_text_has(&root, "scaled-equation", "× 1 (FP32 tensor scale)");
    type_into(&root, "scaled-block-amax", "abc");
    settle().await;
    assert_text_has(&root, "scaled-error", "'abc' is not a number");
    type_into(&root, "scaled-block-amax", "0.01");
    settle().await;
    assert_text_has(
        &root,
        "scaled-error",
        "larger than the block's largest magnitude",
    );
}

/// A link opens the scaled view it names: the block format and both magnitudes come from the
/// URL (`block`, `bamax`, `tamax`), with the same result as typing them.
#[wasm_bindgen_test]
async fn a_link_opens_the_scaled_view_it_names() {
    use bitbudget_app::ui::pages::bits::query::BitsQuery;
    use bitbudget_app::ui::pages::bits::BitsPage;
    use bitbudget_app::ui::shell::query::parse_page_query;
    use bitbudget_math::quant::scaled::{scaled, BlockFormat};
    use leptos::prelude::*;
    let (shell, q) =
        parse_page_query::<BitsQuery>("?tab=bits&x=0.1&fmt=bf16&block=nvfp4&bamax=6&tamax=2688");
    assert!(shell.notes.is_empty(), "{:?}", shell.notes);
    let (root, _app) = mount_fresh(move || view! { <BitsPage initial=q /> });
    settle().await;
    let select: web_sys::HtmlSelectElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "scaled-format"));
    assert_eq!(select.value(), "nvfp4");
    let s = scaled(BlockFormat::Nvfp4, 0.1, 6.0, 2688.0).unwrap();
    assert_text_is(
        &root,
        "scaled-equation",
        &bitbudget_app::ui::pages::bits::scaled_view::equation(&s),
    );
    assert_text_has(&root, "scaled-scale-bits", "0 0111 000");
}

/// On a phone (390 px) every FP32 bit is a touch target of at least 24 × 24 CSS px (WCAG 2.2,
/// target size), and no card overflows: the bit rows wrap instead of shrinking.
#[wasm_bindgen_test]
async fn at_390_px_every_bit_is_a_24_px_target_and_nothing_overflows() {
    use bitbudget_app::ui::pages::bits::query::BitsQuery;
    use bitbudget_app::ui::pages::bits::BitsPage;
    use leptos::prelude::*;
    let (root, _app) = mount_in_frame(390, 844, || {
        view! { <BitsPage initial=BitsQuery::default() /> }
    })
    .await;
    let card = by_testid(&root, "card-f32");
    let bits = card.query_selector_all(".bit").unwrap();
    assert_eq!(bits.length(), 32);
    for i in 0..bits.length() {
        let el: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(bits.item(i).unwrap());
        let r = el.get_bounding_client_rect();
        assert!(
            r.width() >= 24.0 && r.height() >= 24.0,
            "bit {i}: {} × {}",
            r.width(),
            r.height()
        );
    }
    let cards = root.query_selector_all(".format-card").unwrap();
    for i in 0..cards.length() {
        let el: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(cards.item(i).unwrap());
        assert!(
            el.scroll_width() <= el.client_width(),
            "card {i} overflows: {} > {}",
            el.scroll_width(),
            el.client_width()
        );
    }
}

/// An embed in a 760 px column opens at its point: the value, the number line and the chosen
/// format's card, about one screen tall; the other formats are one click away, and no card's
/// bits overflow it.
#[wasm_bindgen_test]
async fn an_embed_in_a_760_px_column_shows_the_chosen_format_and_the_rest_on_a_click() {
    use bitbudget_app::ui::pages::bits::query::BitsQuery;
    use bitbudget_app::ui::pages::bits::BitsPage;
    use leptos::prelude::*;
    let initial = BitsQuery {
        x: "0.1".into(),
        fmt: FormatId::Bf16,
        ..BitsQuery::default()
    };
    let (root, _app) =
        mount_in_frame(760, 900, move || view! { <BitsPage initial embed=true /> }).await;
    assert!(shown(&root, "card-bf16") && shown(&root, "number-line"));
    assert!(
        not_on_screen(&root, "card-f32"),
        "the other formats wait behind a click"
    );
    let height = mounted_height(&root);
    assert!(height < 1100.0, "the widget is {height} px tall");
    open_disclosure(&root, "embed-more-cards").await;
    assert!(shown(&root, "card-f32"));
    let cards = root.query_selector_all(".format-card").unwrap();
    assert_eq!(cards.length() as usize, FormatId::ALL.len());
    for i in 0..cards.length() {
        let el: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(cards.item(i).unwrap());
        assert!(el.scroll_width() <= el.client_width(), "card {i} overflows");
    }
}
