//! The Serve page's charts and documents: the budget bar names every part, the documents are the
//! same bytes for the same setup, the chart names parse, and awkward input draws without panicking.

use bitbudget_charts::documents::{self, ServeChart, ServeChartData};
use bitbudget_charts::{serve_budget, serve_lines, svg, ChartError, Scale, DARK, LIGHT};
use bitbudget_math::memory::find_model;
use bitbudget_math::memory::model::gpus::find_gpu;
use bitbudget_math::numbers::Units;
use bitbudget_math::serve::budget::PerGpu;
use bitbudget_math::serve::curves::Curve;
use bitbudget_math::serve::{serve, Engine, ServeSetup};

fn setup(engine: Engine, model: &str, gpu: &str) -> ServeSetup {
    let arch = find_model(model).expect("a model preset").arch;
    ServeSetup::new(engine, model, arch, find_gpu(gpu).expect("a GPU preset"))
}

/// Llama 3 8B under vLLM on one H100 80GB, every knob at its default.
fn llama_on_h100() -> ServeSetup {
    setup(Engine::Vllm, "llama-3-8b", "h100-80gb")
}

/// Whether `doc` writes `text` as a whole text element (plotters puts it on its own line).
fn shows(doc: &str, text: &str) -> bool {
    doc.contains(&format!(">\n{text}\n</text>"))
}

/// Whether `doc` has a text element that starts with `text`.
fn shows_start(doc: &str, text: &str) -> bool {
    doc.contains(&format!(">\n{text}"))
}

#[test]
fn the_budget_document_names_every_part_the_gpu_and_the_engine() {
    let doc = documents::serve(&llama_on_h100(), ServeChart::Budget).unwrap();
    assert!(doc.starts_with("<svg") && doc.trim_end().ends_with("</svg>"));
    for part in [
        "weights ",
        "activations (profiling peak) ",
        "CUDA context + non-torch ",
        "CUDA graphs ",
        "KV cache ",
        "total ",
        "NVIDIA H100 80GB: ",
    ] {
        assert!(shows_start(&doc, part), "no '{part}' label in\n{doc}");
    }
    assert!(shows(&doc, "vLLM&apos;s accounting"));
    assert!(shows(
        &doc,
        "Memory per GPU as vLLM accounts for it: Llama 3 8B"
    ));
    assert!(shows(
        &doc,
        "vLLM · 1 × NVIDIA H100 80GB · bf16 weights · bf16 KV cache"
    ));
    // The sizes are the estimator's, in GiB.
    let kv = serve(&llama_on_h100()).unwrap().per_gpu.kv_cache;
    let gib = bitbudget_math::numbers::format_bytes(kv, Units::Gib);
    assert!(shows(&doc, &format!("KV cache {gib}")), "{gib}");
}

#[test]
fn the_same_serve_setup_gives_the_same_bytes() {
    for chart in ServeChart::ALL {
        let a = documents::serve(&llama_on_h100(), chart).unwrap();
        let b = documents::serve(&llama_on_h100(), chart).unwrap();
        assert_eq!(a, b, "{chart}");
    }
    let other = setup(Engine::Sglang, "llama-3-8b", "h100-80gb");
    assert_ne!(
        documents::serve(&llama_on_h100(), ServeChart::Budget).unwrap(),
        documents::serve(&other, ServeChart::Budget).unwrap()
    );
}

#[test]
fn every_serve_document_has_its_size_title_caption_and_axes() {
    let s = llama_on_h100();
    for (chart, title, words) in [
        (
            ServeChart::Budget,
            "Memory per GPU as vLLM accounts for it",
            &["GiB"][..],
        ),
        (
            ServeChart::Concurrency,
            "Requests at once by context length",
            &[
                "requests at once",
                "one request",
                "bf16 KV",
                "fp8 KV",
                "1K",
                "8K",
            ][..],
        ),
        (
            ServeChart::Speed,
            "Decode speed by concurrency",
            &["tokens/s", "all sequences", "per sequence"][..],
        ),
    ] {
        let doc = documents::serve(&s, chart).unwrap();
        let (w, h) = documents::serve_size(&s, chart, Scale(1.0));
        assert!(
            doc.contains(&format!("width=\"{w}\" height=\"{h}\"")),
            "{chart}"
        );
        assert!(h > documents::serve_chart_height(chart) + 40, "{chart}");
        assert!(shows(&doc, &format!("{title}: Llama 3 8B")), "{chart}");
        assert!(shows_start(&doc, "vLLM · 1 × NVIDIA H100 80GB"), "{chart}");
        for word in words {
            assert!(shows(&doc, word), "{chart}: no '{word}'");
        }
    }
}

#[test]
fn the_speed_chart_marks_where_decode_turns_compute_bound() {
    // Short requests leave so much KV room that the batch reaches the compute roof.
    let mut s = llama_on_h100();
    s.prompt_tokens = 32;
    s.max_model_len = Some(512);
    let (_, knee) = bitbudget_math::serve::curves::speed_by_concurrency(&s);
    let knee = knee.expect("a knee within what the KV cache holds");
    let doc = documents::serve(&s, ServeChart::Speed).unwrap();
    assert!(shows(&doc, &format!("compute-bound from {knee}")), "{doc}");
    assert!(shows_start(&doc, "vLLM · ") && doc.contains("prompt 32 tokens"));
}

#[test]
fn the_2x_serve_drawing_is_twice_the_1x_drawing() {
    let s = llama_on_h100();
    for chart in ServeChart::ALL {
        let (w1, h1) = documents::serve_size(&s, chart, Scale(1.0));
        let (w2, h2) = documents::serve_size(&s, chart, Scale(2.0));
        assert_eq!((w2, h2), (2 * w1, 2 * h1), "{chart}");
    }
}

#[test]
fn a_refused_serve_setup_is_an_input_error_with_the_estimators_message() {
    let mut s = llama_on_h100();
    s.tp = 3;
    let want = serve(&s).unwrap_err().to_string();
    for chart in ServeChart::ALL {
        match documents::serve(&s, chart) {
            Err(ChartError::Input(m)) => assert_eq!(m, want),
            other => panic!("{chart}: expected an input error, got {other:?}"),
        }
        assert!(ServeChartData::new(&s, chart).is_err());
    }
}

#[test]
fn serve_chart_names_round_trip_and_a_bad_name_says_what_is_expected() {
    for c in ServeChart::ALL {
        assert_eq!(c.to_string().parse::<ServeChart>(), Ok(c));
    }
    assert_eq!(" Budget ".parse::<ServeChart>(), Ok(ServeChart::Budget));
    assert_eq!("speed".parse::<ServeChart>(), Ok(ServeChart::Speed));
    assert_eq!(
        "concurrency".parse::<ServeChart>(),
        Ok(ServeChart::Concurrency)
    );
    let e = "pie".parse::<ServeChart>().unwrap_err().to_string();
    assert!(
        e.contains("'pie'") && e.contains("budget, concurrency, speed"),
        "{e}"
    );
}

#[test]
fn every_engine_draws_every_serve_chart_in_both_themes_and_widths() {
    let mut llama_cpp = setup(Engine::LlamaCpp, "llama-3-8b", "rtx-4090");
    llama_cpp.checkpoint = bitbudget_math::serve::Checkpoint::Q4KM;
    let setups = [
        llama_on_h100(),
        setup(Engine::Sglang, "qwen3-8b", "a100-80gb"),
        setup(Engine::TrtLlm, "llama-3-8b", "t4"),
        // The weights alone exceed the card: no KV cache, the excess hatched.
        setup(Engine::Vllm, "llama-3-70b", "h100-80gb"),
        llama_cpp,
    ];
    for s in &setups {
        for chart in ServeChart::ALL {
            let data = ServeChartData::new(s, chart).unwrap();
            for theme in [LIGHT, DARK] {
                for w in [720, 350] {
                    let doc = svg(&data, w, documents::serve_chart_height(chart), &theme)
                        .unwrap_or_else(|e| panic!("{} {chart}: {e}", s.model_id));
                    assert!(doc.starts_with("<svg"));
                }
            }
        }
    }
}

#[test]
fn a_budget_of_nothing_draws_the_capacity_alone() {
    let nothing = PerGpu::default();
    let input = serve_budget::Input {
        per_gpu: &nothing,
        capacity: (0, "no GPU"),
        units: Units::Gb,
        engine: "",
    };
    let doc = svg(&input, 720, serve_budget::HEIGHT, &LIGHT).unwrap();
    assert!(shows(&doc, "total 0.00 GB") && !doc.contains("accounting"));
    let hits = bitbudget_charts::Chart::draw(
        &input,
        &plotters::prelude::IntoDrawingArea::into_drawing_area(
            plotters::prelude::SVGBackend::with_string(&mut String::new(), (350, 420)),
        ),
        &DARK,
        Scale(1.0),
    )
    .unwrap();
    assert!(hits.is_empty());
}

#[test]
fn empty_and_unplottable_curves_draw_the_background_only() {
    let unplottable = [Curve {
        label: "bf16 KV".into(),
        points: vec![
            (f64::NAN, 3.0),
            (0.0, 2.0),
            (-4.0, 1.0),
            (8.0, f64::INFINITY),
        ],
    }];
    for curves in [&[][..], &unplottable[..]] {
        let input = serve_lines::Input {
            curves,
            x_title: "context length (max_model_len, tokens)",
            y_title: "requests at once",
            log_x: true,
            log_y: true,
            vline: Some((f64::NAN, "compute-bound from NaN")),
            hline: Some((1.0, "one request")),
        };
        let doc = svg(&input, 720, serve_lines::HEIGHT, &LIGHT).unwrap();
        assert!(!doc.contains("<text"), "{doc}");
    }
}
