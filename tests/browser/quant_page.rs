//! Browser tests of the Quantize lab in headless Chromium: every scheme runs on a synthetic tensor,
//! switching schemes updates the detail, an uploaded safetensors file's tensors can be picked by
//! name, and a malformed upload shows an error and keeps the page.

use super::common::*;
use bitbudget_app::ui::pages::quant::QuantPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// Rows of the metrics table: one per scheme of the math crate's list.
const SCHEMES: u32 = Scheme::ALL.len() as u32;

fn rows(root: &web_sys::HtmlElement) -> u32 {
    root.query_selector_all("[data-testid='quant-table'] tbody tr")
        .unwrap()
        .length()
}

async fn until_computed(root: &web_sys::HtmlElement) {
    for _ in 0..200 {
        if rows(root) == SCHEMES {
            return;
        }
        settle().await;
    }
    panic!("the schemes were not computed");
}

/// Mounts the Quantize lab for `url`'s query into a fresh element and waits until every scheme
/// is computed; the handle keeps the page mounted.
async fn mount_computed(url: &str) -> (web_sys::HtmlElement, impl Sized) {
    let q = parse_query(url);
    let (root, app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    until_computed(&root).await;
    (root, app)
}

#[wasm_bindgen_test]
async fn every_scheme_runs_and_the_detail_follows_the_selection() {
    let q = parse_query("?tab=quant&scheme=q8_0&tensor=laplace&seed=3");
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    until_computed(&root).await;
    let sqnr = |s: &str| text(&root, &format!("sqnr-{s}")).parse::<f64>().unwrap();
    assert!(
        sqnr("q8_0") > sqnr("q5_0") && sqnr("q5_0") > sqnr("q4_0"),
        "more bits, less error"
    );
    assert!(by_testid(&root, "row-q8_0")
        .class_list()
        .contains("selected"));
    let q8_code = text(&root, "code-0");
    choose(&root, "quant-scheme", "q4_0");
    settle().await;
    assert!(by_testid(&root, "row-q4_0")
        .class_list()
        .contains("selected"));
    let q4_code: i32 = text(&root, "code-0").parse().unwrap();
    assert!(
        (0..16).contains(&q4_code),
        "a 4-bit code, was {q4_code} (Q8_0 code {q8_code})"
    );
    assert_text_is(&root, "block-hint", "131,072 values → 2,048 blocks of 64");
    by_testid(&root, "block-per-row").click();
    settle().await;
    assert_text_is(&root, "block-hint", "131,072 values → 256 blocks of 512");
    for id in ["quant-histogram", "quant-tradeoff"] {
        // A chart is drawn once it is in view (the FP4 options can push it below the window).
        scroll_into_view(&root, id).await;
        assert!(canvas_fingerprint(&root, id).1 >= 3, "{id} is blank");
    }
    assert!(text(&root, "int8-mixed-rmse").parse::<f64>().is_ok());
    // Switching the tensor recomputes every scheme on the new one.
    let laplace_q8 = text(&root, "sqnr-q8_0");
    choose(&root, "quant-source", "uniform");
    for _ in 0..200 {
        settle().await;
        if rows(&root) == SCHEMES && text(&root, "sqnr-q8_0") != laplace_q8 {
            break;
        }
    }
    assert_text_has(&root, "tensor-status", "uniform values");
    assert_ne!(
        text(&root, "sqnr-q8_0"),
        laplace_q8,
        "the metrics follow the new tensor"
    );
}

#[wasm_bindgen_test]
async fn picking_q4_k_shows_its_row_and_llama_cpp_s_codes() {
    use bitbudget_math::quant::analysis::codes;
    use bitbudget_math::quant::codec::quantize;
    use bitbudget_math::quant::generate::{generate, Distribution};
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal&seed=2").await;
    choose(&root, "quant-scheme", "q4_k");
    settle().await;
    assert!(by_testid(&root, "row-q4_k")
        .class_list()
        .contains("selected"));
    assert_eq!(text(&root, "bits-q4_k"), "4.500");
    let sqnr = |s: &str| text(&root, &format!("sqnr-{s}")).parse::<f64>().unwrap();
    assert!(
        sqnr("q4_0") < sqnr("q4_k") && sqnr("q4_k") < sqnr("q5_k") && sqnr("q2_k") < sqnr("q3_k"),
        "q2_k {} q3_k {} q4_0 {} q4_k {} q5_k {}",
        sqnr("q2_k"),
        sqnr("q3_k"),
        sqnr("q4_0"),
        sqnr("q4_k"),
        sqnr("q5_k")
    );
    // The codes grid shows the 4-bit codes that llama.cpp's layout stores for the first values.
    let x = generate(Distribution::Normal, 256, 512, 0.02, 2);
    let s: Scheme = "q4_k".parse().unwrap();
    let bytes = quantize(s, &x[..256], 256).unwrap();
    for (j, c) in codes(s, &bytes, 256, 4).iter().enumerate() {
        assert_eq!(text(&root, &format!("code-{j}")), c.to_string(), "code {j}");
    }
    for id in ["quant-histogram", "quant-tradeoff"] {
        // A chart is drawn once it is in view (the FP4 options can push it below the window).
        scroll_into_view(&root, id).await;
        assert!(canvas_fingerprint(&root, id).1 >= 3, "{id} is blank");
    }
}

#[wasm_bindgen_test]
async fn a_k_quant_super_block_is_taken_apart_with_the_math_crate_s_numbers() {
    use bitbudget_math::numbers::short;
    use bitbudget_math::quant::generate::{generate, Distribution};
    use bitbudget_math::quant::kquants::KType;
    use bitbudget_math::quant::lab::Overview;
    let (root, _app) = mount_computed("?tab=quant&scheme=q4_k&tensor=normal&seed=2").await;
    until_present(&root, "kq-value", 50).await;
    let x = generate(Distribution::Normal, 256, 512, 0.02, 2);
    let peak = Overview::new(&x).peak;
    let bytes = KType::Q4K.super_block(&x, peak / 256).unwrap();
    let expect = |w: usize| {
        let r = KType::Q4K.rebuild(&bytes, w).unwrap();
        assert_eq!(
            text(&root, "kq-value"),
            short(r.value as f64, 6),
            "weight {w}"
        );
        assert_eq!(text(&root, "kq-q"), r.q.to_string(), "weight {w}");
        assert_eq!(text(&root, "kq-sc"), r.sc.to_string(), "weight {w}");
        let d = format!("0x{:04X}", r.d_bits);
        assert!(
            text(&root, "kq-line-0").contains(&d),
            "{}",
            text(&root, "kq-line-0")
        );
        assert!(text(&root, "kq-line-1").contains(&format!("m = {:06b}₂", r.m)));
        // The weight is rebuilt exactly as the dequantizer does it.
        assert_eq!(
            r.value,
            r.d * r.sc as f32 * r.q as f32 - r.dmin * r.m as f32
        );
    };
    expect(peak % 256);
    assert!(
        canvas_fingerprint(&root, "kquant-diagram").1 >= 3,
        "the diagram is blank"
    );
    type_into(&root, "kq-weight", "3");
    settle().await;
    expect(3);
    type_into(&root, "kq-weight", "300");
    settle().await;
    assert_eq!(
        text(&root, "kq-error"),
        "'300' is not a weight between 0 and 255"
    );
    expect(3);
    choose(&root, "quant-scheme", "q8_0");
    settle().await;
    assert!(
        !present(&root, "kquant-block"),
        "only a K-quant has super-blocks"
    );
}

/// A safetensors file with an F32 tensor `attn.weight` (4 × 64, a ramp) and a BF16 tensor
/// `mlp.weight` (2 × 64, a different ramp).
fn two_tensor_safetensors() -> Vec<u8> {
    let header = r#"{"attn.weight":{"dtype":"F32","shape":[4,64],"data_offsets":[0,1024]},"mlp.weight":{"dtype":"BF16","shape":[2,64],"data_offsets":[1024,1280]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    for i in 0..256 {
        bytes.extend_from_slice(&((i as f32 - 127.5) * 0.01).to_le_bytes());
    }
    for i in 0..128 {
        let v = ((i * 37 % 128) as f32 - 64.0) * 0.25;
        bytes.extend_from_slice(&((v.to_bits() >> 16) as u16).to_le_bytes());
    }
    bytes
}

async fn until_status_contains(root: &web_sys::HtmlElement, what: &str) {
    for _ in 0..200 {
        if text(root, "tensor-status").contains(what) && rows(root) == SCHEMES {
            return;
        }
        settle().await;
    }
    panic!(
        "the status never showed {what}: {}",
        text(root, "tensor-status")
    );
}

#[wasm_bindgen_test]
async fn an_uploaded_safetensors_file_is_quantized_and_its_tensors_picked_by_name() {
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal").await;
    upload(&root, "two.safetensors", &two_tensor_safetensors());
    until_status_contains(&root, "attn.weight").await;
    assert_text_has(&root, "tensor-status", "256");
    let attn_sqnr = text(&root, "sqnr-q8_0");
    // The picker lists both tensors; choosing the BF16 one recomputes every scheme on it.
    choose(&root, "quant-pick", "mlp.weight");
    until_status_contains(&root, "mlp.weight").await;
    for _ in 0..200 {
        if text(&root, "sqnr-q8_0") != attn_sqnr {
            break;
        }
        settle().await;
    }
    assert_ne!(
        text(&root, "sqnr-q8_0"),
        attn_sqnr,
        "the metrics follow the picked tensor"
    );
    // Every value of the BF16 ramp is a multiple of 0.25 within ±16, so BF16 keeps it exactly.
    assert_text_is(&root, "sqnr-bf16", "∞");
    assert!(!present(&root, "upload-error"));
}

#[wasm_bindgen_test]
async fn a_malformed_upload_shows_why_and_keeps_the_tensor() {
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal").await;
    let before = text(&root, "tensor-status");
    upload(
        &root,
        "weights.npy",
        b"\x93NUMPY\x01\x00\x10\x00{'descr': '<i8'}",
    );
    until_present(&root, "upload-error", 50).await;
    let error = text(&root, "upload-error");
    assert_has(&error, "weights.npy");
    assert_eq!(
        text(&root, "tensor-status"),
        before,
        "the previous tensor stays"
    );
    assert_eq!(rows(&root), SCHEMES);
}

/// A 1-D little-endian f32 `.npy` file of `values`.
fn npy(values: &[f32]) -> Vec<u8> {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    bitbudget_math::quant::tensor_io::npy_file("<f4", &[values.len()], &data)
}

#[wasm_bindgen_test]
async fn an_infinity_in_the_tensor_is_reported_not_hidden() {
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal").await;
    assert!(
        !present(&root, "non-finite-note"),
        "a clean tensor has no warning"
    );
    let mut values = vec![0.5f32; 64];
    values[0] = f32::INFINITY;
    upload(&root, "inf.npy", &npy(&values));
    until_status_contains(&root, "inf.npy").await;
    until_present(&root, "non-finite-note", 100).await;
    let note = text(&root, "non-finite-note");
    assert!(note.starts_with("1 value is NaN or ±inf"), "{note}");
    // llama.cpp's Q8_0 scale for the first block is infinite: its other 31 values come back NaN.
    assert_has(&note, "q8_0 (31 values)");
    assert_text_is(&root, "sqnr-q8_0", "−∞");
    assert!(by_testid(&root, "row-q8_0").class_list().contains("lost"));
    // FP8's per-tensor scale ignores the infinity, so the finite values survive exactly.
    assert_text_is(&root, "sqnr-f8e4m3", "∞");
}

#[wasm_bindgen_test]
async fn a_block_size_error_clears_when_a_preset_sets_a_valid_size() {
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal").await;
    type_into(&root, "quant-block", "7");
    settle().await;
    let error = text(&root, "quant-block-error");
    assert_has(&error, "'7'");
    by_testid(&root, "block-256").click();
    settle().await;
    assert!(
        !present(&root, "quant-block-error"),
        "the error outlived the valid value"
    );
    let input: web_sys::HtmlInputElement = by_testid(&root, "quant-block").unchecked_into();
    assert_eq!(input.value(), "256");
    // The same after a valid value typed by hand.
    type_into(&root, "quant-block", "x");
    settle().await;
    assert!(present(&root, "quant-block-error"));
    type_into(&root, "quant-block", "128");
    settle().await;
    assert!(!present(&root, "quant-block-error"));
}

#[wasm_bindgen_test]
async fn a_bad_model_size_says_why_and_keeps_the_last_good_one() {
    let (root, _app) = mount_computed("?tab=quant&scheme=q8_0&tensor=normal").await;
    type_into(&root, "quant-params", "70");
    settle().await;
    let whole = text(&root, "model-bytes-bf16");
    assert_eq!(whole, "140.0 GB", "70e9 params × 2 bytes");
    for (typed, why) in [
        ("-7", "more than 0"),
        ("0", "more than 0"),
        ("NaN", "not a number"),
        ("seventy", "not a number"),
        ("1e15", "at most"),
    ] {
        type_into(&root, "quant-params", typed);
        settle().await;
        let error = text(&root, "quant-params-error");
        assert!(error.contains(why), "{typed}: {error}");
        assert!(error.ends_with("the table keeps 70 billion"), "{error}");
        assert_eq!(text(&root, "model-bytes-bf16"), whole, "{typed}");
    }
    type_into(&root, "quant-params", "8");
    settle().await;
    assert!(!present(&root, "quant-params-error"));
    assert_text_is(&root, "model-bytes-bf16", "16.00 GB");
}

#[wasm_bindgen_test]
async fn the_outlier_tensor_is_described_in_plain_words() {
    let (root, _app) =
        mount_computed("?tab=quant&scheme=q8_0&tensor=outliers&outliers=4&magnitude=20").await;
    let status = text(&root, "tensor-status");
    assert!(
        status.starts_with("normal values with 4 outlier channels of magnitude 20 · 256 × 512"),
        "{status}"
    );
    assert!(!status.contains('{') && !status.contains('['), "{status}");
}

#[wasm_bindgen_test]
async fn the_metrics_table_keeps_its_first_column_in_view_and_clips_no_number() {
    load_css();
    let q = parse_query("?tab=quant&scheme=q8_0&tensor=normal");
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    root.style().set_property("width", "1280px").unwrap();
    until_computed(&root).await;
    let table = by_testid(&root, "quant-table");
    let scroller = table.parent_element().unwrap();
    assert_not_cut(&scroller, "at 1280 px the metrics table (numbers hidden)");
    let first = root
        .query_selector("[data-testid='quant-table'] tbody th")
        .unwrap()
        .unwrap();
    let style = web_sys::window()
        .unwrap()
        .get_computed_style(&first)
        .unwrap()
        .unwrap();
    assert_eq!(
        style.get_property_value("position").unwrap(),
        "sticky",
        "the scheme column stays in view while the numbers scroll"
    );
}

/// Waits until the table has `n` rows.
async fn until_rows(root: &web_sys::HtmlElement, n: u32) {
    for _ in 0..200 {
        if rows(root) == n && !present(root, "quant-progress") {
            return;
        }
        settle().await;
    }
    panic!("{} rows, not {n}", rows(root));
}

#[wasm_bindgen_test]
async fn the_lab_compares_the_families_and_schemes_picked_and_always_the_one_shown() {
    let q = parse_query("?tab=quant&tensor=normal&schemes=mx");
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    // The block-scaled family: MXFP4, NVFP4, the MXFP6 and MXFP8 pairs, FP8 1×128 and 128×128.
    until_rows(&root, 8).await;
    assert_text_is(
        &root,
        "scheme-count",
        &format!("Schemes compared: 8 of {SCHEMES}"),
    );
    assert!(by_testid(&root, "row-mxfp4")
        .class_list()
        .contains("selected"));
    assert!(!present(&root, "row-q4_0"), "q4_0 is not compared");
    let mxfp4_sqnr = text(&root, "sqnr-mxfp4");
    // A family joins: its rows appear, the others' numbers stay.
    set_checked(&root, "family-k-quants", true);
    until_rows(&root, 14).await;
    assert_eq!(text(&root, "sqnr-mxfp4"), mxfp4_sqnr);
    assert!(text(&root, "sqnr-q4_k").parse::<f64>().is_ok());
    // Leaving out the shown scheme shows the first one left.
    set_checked(&root, "compare-mxfp4", false);
    until_rows(&root, 13).await;
    assert!(by_testid(&root, "row-q2_k")
        .class_list()
        .contains("selected"));
    assert_text_is(
        &root,
        "scheme-count",
        &format!("Schemes compared: 13 of {SCHEMES}"),
    );
    // Showing a scheme from the list of all compares it too.
    choose(&root, "quant-scheme", "bf16");
    until_rows(&root, 14).await;
    let bf16: web_sys::HtmlInputElement = by_testid(&root, "compare-bf16").unchecked_into();
    assert!(bf16.checked());
    // "Only the one shown", then "all schemes".
    by_testid(&root, "compare-shown").click();
    until_rows(&root, 1).await;
    by_testid(&root, "compare-all").click();
    until_rows(&root, SCHEMES).await;
    assert_text_is(
        &root,
        "scheme-count",
        &format!("Schemes compared: all {SCHEMES}"),
    );
}

/// On a phone the table's key columns (scheme, bits, whole model, SQNR) fit without a sideways
/// swipe and "All columns" brings back the rest; while the controls below the results are
/// changed, the scheme shown and its numbers stay at the top of the screen.
#[wasm_bindgen_test]
async fn at_390_px_the_key_columns_fit_and_the_scheme_stays_in_view() {
    let q = parse_query("?tab=quant&tensor=normal&scheme=q4_0");
    let (root, _app) =
        mount_in_frame(390, 844, move || view! { <QuantPage initial=q.quant /> }).await;
    until_computed(&root).await;
    let table = by_testid(&root, "quant-table");
    let scroller = table.parent_element().unwrap();
    assert!(
        scroller.scroll_width() <= scroller.client_width(),
        "the key columns need a swipe: {} > {}",
        scroller.scroll_width(),
        scroller.client_width()
    );
    assert!(
        shown(&root, "sqnr-q4_0") && shown(&root, "model-bytes-q4_0") && shown(&root, "bits-q4_0")
    );
    let mse = || {
        let cell: web_sys::HtmlElement = table
            .query_selector("tbody tr td.more")
            .unwrap()
            .unwrap()
            .unchecked_into();
        element_shown(&cell)
    };
    assert!(!mse(), "the secondary columns are hidden on a phone");
    by_testid(&root, "quant-all-columns").click();
    settle().await;
    assert!(mse(), "All columns shows them");
    // The controls come last: at the bottom of the page the strip is in view above them.
    let frame_window = root.owner_document().unwrap().default_view().unwrap();
    frame_window.scroll_to_with_x_and_y(0.0, 1e6);
    sleep(50).await;
    let strip = by_testid(&root, "scheme-strip");
    let (line_box, block) = (
        strip.get_bounding_client_rect(),
        by_testid(&root, "quant-block").get_bounding_client_rect(),
    );
    assert!(
        line_box.top() >= -1.0 && line_box.bottom() <= block.top() && block.bottom() <= 844.0,
        "strip {}–{}, block field {}–{}",
        line_box.top(),
        line_box.bottom(),
        block.top(),
        block.bottom()
    );
    let sqnr = text(&root, "sqnr-q4_0");
    let line = strip.text_content().unwrap();
    assert!(
        line.starts_with("q4_0: 4.500 bits/weight") && line.contains(&format!("SQNR {sqnr} dB")),
        "{line}"
    );
}

/// An embedded lab opens at its table; the charts and the controls are one click away.
#[wasm_bindgen_test]
async fn an_embed_opens_at_its_table_with_the_charts_and_controls_one_click_away() {
    let q = parse_query("?tab=quant&tensor=normal&schemes=k-quants,nf4&embed=1");
    let (root, _app) = mount_in_frame(
        760,
        900,
        move || view! { <QuantPage initial=q.quant embed=true /> },
    )
    .await;
    for _ in 0..200 {
        if rows(&root) == 7 {
            break;
        }
        settle().await;
    }
    assert_eq!(rows(&root), 7);
    assert!(shown(&root, "quant-table"));
    assert!(not_on_screen(&root, "quant-scheme") && not_on_screen(&root, "quant-histogram"));
    let height = mounted_height(&root);
    assert!(height < 900.0, "the widget is {height} px tall");
    open_disclosure(&root, "embed-more-controls").await;
    open_disclosure(&root, "embed-more-results").await;
    assert!(shown(&root, "quant-scheme") && shown(&root, "quant-histogram"));
}

#[wasm_bindgen_test]
async fn fp8_128x128_on_a_synthetic_tensor_matches_the_math_crate_at_its_real_columns() {
    use bitbudget_app::ui::pages::quant::quant_table::sqnr_text;
    use bitbudget_math::quant::generate::{generate, Distribution};
    use bitbudget_math::quant::lab::analyse;
    let (root, _app) = mount_computed("?tab=quant&scheme=fp8-128x128&tensor=normal&seed=4").await;
    let s = Scheme::Fp8Block;
    // The lab's synthetic tensor is 256 rows of 512 columns: the scheme gets 512, not the block box's 64.
    let x = generate(Distribution::Normal, 256, 512, 0.02, 4);
    let (row, _) = analyse(s, &x, 512, false).unwrap();
    let (wrong, _) = analyse(s, &x, 64, false).unwrap();
    let bits = format!("{:.3}", row.bits_per_weight);
    assert_ne!(
        bits,
        format!("{:.3}", wrong.bits_per_weight),
        "the test tells the two apart"
    );
    assert_text_is(&root, "bits-fp8-128x128", &bits);
    assert_text_is(&root, "sqnr-fp8-128x128", &sqnr_text(row.metrics.sqnr_db));
    assert_text_has(
        &root,
        "scheme-strip",
        &format!("fp8-128x128: {bits} bits/weight"),
    );
    assert_text_is(
        &root,
        "cols-used",
        "fp8-128x128 reads rows of 512 columns (the tensor's last dimension; this box is for 1D tensors)",
    );
    assert!(!present(&root, "left-out-note"));
}

#[wasm_bindgen_test]
async fn a_bad_cols_value_says_why_and_the_page_keeps_working() {
    for bad in ["0", "NaN", "1e15", "text", "-1"] {
        let q = parse_query(&format!(
            "?tab=quant&scheme=fp8-128x128&tensor=normal&cols={bad}"
        ));
        assert_eq!(q.quant.cols, None, "{bad}");
        assert!(
            q.notes
                .iter()
                .any(|n| n.starts_with("cols: ") && n.contains(&format!("'{bad}'"))),
            "{bad}: {:?}",
            q.notes
        );
    }
    // 1e15 columns: the page computes every scheme as if no count had been given.
    let (root, _app) =
        mount_computed("?tab=quant&scheme=fp8-128x128&tensor=normal&cols=1e15").await;
    let input: web_sys::HtmlInputElement = by_testid(&root, "quant-cols").unchecked_into();
    assert_eq!(input.value(), "");
    // A count that does not divide a 1D tensor leaves fp8-128x128 out, says why, and runs the rest.
    let q = parse_query("?tab=quant&scheme=q8_0&tensor=normal&cols=300&schemes=q8_0,fp8-128x128");
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    until_rows(&root, 2).await;
    let values: Vec<f32> = (0..1024).map(|i| (i as f32 - 512.0) / 1024.0).collect();
    upload(&root, "row.npy", &npy(&values));
    until_present(&root, "left-out-note", 200).await;
    assert_text_has(&root, "tensor-status", "row.npy");
    assert_text_is(
        &root,
        "left-out-note",
        "fp8-128x128 is left out: 1024 weights is not a whole number of rows of 300 columns (124 left over).",
    );
    until_rows(&root, 1).await;
    assert!(present(&root, "row-q8_0"), "q8_0 still runs");
    // Typed in the box, a count that does not divide stays there with a message; one that does
    // brings fp8-128x128 back.
    choose(&root, "quant-scheme", "fp8-128x128");
    settle().await;
    type_into(&root, "quant-cols", "7");
    settle().await;
    assert_has(&text(&root, "quant-cols-error"), "rows of 7 columns");
    type_into(&root, "quant-cols", "256");
    settle().await;
    assert!(!present(&root, "quant-cols-error"));
    until_rows(&root, 2).await;
    assert!(!present(&root, "left-out-note"));
    assert_text_has(&root, "cols-used", "rows of 256 columns (this box)");
    let (row, _) =
        bitbudget_math::quant::lab::analyse(Scheme::Fp8Block, &values, 256, false).unwrap();
    assert_text_is(
        &root,
        "bits-fp8-128x128",
        &format!("{:.3}", row.bits_per_weight),
    );
}

/// Whether the checkbox `id` is ticked.
fn checked(root: &web_sys::HtmlElement, id: &str) -> bool {
    by_testid(root, id)
        .unchecked_into::<web_sys::HtmlInputElement>()
        .checked()
}

/// Waits until `id`'s text differs from `before` (and the lab is not computing).
async fn until_changed(root: &web_sys::HtmlElement, id: &str, before: &str) -> String {
    for _ in 0..200 {
        settle().await;
        let now = text(root, id);
        if now != before && !present(root, "quant-progress") {
            return now;
        }
    }
    panic!("{id} stayed {before}");
}

#[wasm_bindgen_test]
async fn a_link_with_rht_and_sr_turns_the_options_on_and_changes_nvfp4s_numbers() {
    let link = "?tab=quant&scheme=nvfp4&tensor=outliers&schemes=nvfp4,mxfp4&rht=7&sr=3";
    let q = parse_query(link);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    until_rows(&root, 2).await;
    assert!(checked(&root, "quant-rht") && checked(&root, "quant-sr"));
    let seed = |id| {
        by_testid(&root, id)
            .unchecked_into::<web_sys::HtmlInputElement>()
            .value()
    };
    assert_eq!(
        (seed("quant-rht-seed"), seed("quant-sr-seed")),
        ("7".into(), "3".into())
    );
    let with = (
        text(&root, "sqnr-nvfp4"),
        text(&root, "code-0"),
        text(&root, "sqnr-mxfp4"),
    );
    // Both off: the plain round-to-nearest numbers, which differ.
    set_checked(&root, "quant-rht", false);
    until_changed(&root, "sqnr-mxfp4", &with.2).await;
    set_checked(&root, "quant-sr", false);
    until_changed(&root, "sqnr-nvfp4", &text(&root, "sqnr-nvfp4")).await;
    let off = (
        text(&root, "sqnr-nvfp4"),
        text(&root, "code-0"),
        text(&root, "sqnr-mxfp4"),
    );
    assert_ne!(with, off);
    // RHT spreads MXFP4's outlier channels: a better SQNR than without (bitbudget-math's
    // `rht_helps_mxfp4_with_outlier_channels`), shown in the table.
    set_checked(&root, "quant-rht", true);
    let rotated: f64 = until_changed(&root, "sqnr-mxfp4", &off.2)
        .await
        .parse()
        .unwrap();
    assert!(
        rotated > off.2.parse::<f64>().unwrap(),
        "{rotated} vs {}",
        off.2
    );
    // Without NVFP4 and MXFP4 compared, the options are not offered.
    choose(&root, "quant-scheme", "q8_0");
    set_checked(&root, "compare-nvfp4", false);
    set_checked(&root, "compare-mxfp4", false);
    until_rows(&root, 1).await;
    assert!(!present(&root, "quant-rht"));
}

#[wasm_bindgen_test]
async fn a_bad_rht_seed_is_reported_and_the_option_stays_off() {
    let q = parse_query("?tab=quant&scheme=nvfp4&tensor=normal&schemes=nvfp4&rht=x&sr=-1");
    assert_eq!(q.quant.fp4, Default::default());
    assert!(
        q.notes
            .iter()
            .any(|n| n.starts_with("rht: ") && n.contains("'x' is not a whole number")),
        "{:?}",
        q.notes
    );
    assert!(q
        .notes
        .iter()
        .any(|n| n.starts_with("sr: ") && n.contains("negative")));
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    until_rows(&root, 1).await;
    assert!(!checked(&root, "quant-rht") && !checked(&root, "quant-sr"));
    // A bad seed typed in the box says why and leaves the lab as it was.
    let before = text(&root, "bias-nvfp4");
    type_into(&root, "quant-rht-seed", "12x");
    settle().await;
    assert_has(
        &text(&root, "quant-rht-error"),
        "'12x' is not a whole number",
    );
    assert!(!checked(&root, "quant-rht"));
    assert_eq!(text(&root, "bias-nvfp4"), before);
    // A good one turns it on, and the lab recomputes with it.
    type_into(&root, "quant-rht-seed", "12");
    settle().await;
    assert!(!present(&root, "quant-rht-error"));
    assert!(checked(&root, "quant-rht"));
    until_changed(&root, "bias-nvfp4", &before).await;
}

/// Every block of 16 is one 6.0 (which sets the scale so that E2M1's steps are 0.5 apart) and
/// values a quarter of the way from 0.5 to 1.0: round to nearest always rounds them down (a mean
/// error of about −0.23), stochastic rounding up one time in four (a mean error near 0).
#[wasm_bindgen_test]
async fn stochastic_rounding_shows_a_mean_error_near_zero_where_round_to_nearest_is_biased() {
    let (root, _app) = mount_computed("?tab=quant&scheme=nvfp4&tensor=normal").await;
    let values: Vec<f32> = (0..16 * 1024)
        .map(|i| if i % 16 == 0 { 6.0 } else { 1.25 })
        .collect();
    let before = text(&root, "bias-nvfp4");
    upload(&root, "biased.npy", &npy(&values));
    until_status_contains(&root, "biased.npy").await;
    let nearest_text = until_changed(&root, "bias-nvfp4", &before).await;
    set_checked(&root, "quant-sr", true);
    let sr: f64 = until_changed(&root, "bias-nvfp4", &nearest_text)
        .await
        .parse()
        .unwrap();
    let nearest: f64 = nearest_text.parse().unwrap();
    let want = |opts| {
        use bitbudget_math::quant::fp4_options::{dequantize, mean_error, quantize};
        let y = dequantize(
            Scheme::Nvfp4,
            &quantize(Scheme::Nvfp4, &values, opts, 0).unwrap(),
            opts,
        );
        mean_error(&values, &y.unwrap())
    };
    let sr_on = bitbudget_math::quant::fp4_options::Fp4Options {
        rht: None,
        sr: Some(1),
    };
    assert!(
        (nearest - want(Default::default())).abs() < 1e-3,
        "{nearest}"
    );
    assert!(nearest < -0.2, "{nearest}");
    assert!((sr - want(sr_on)).abs() < 1e-3 && sr.abs() < 0.02, "{sr}");
}
