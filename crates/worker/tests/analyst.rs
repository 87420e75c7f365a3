//! A worker's answers, read back from their bytes, are exactly the page's own-thread results.

use bitbudget_math::quant::fp4_options::{Fp4Options, SCHEMES as FP4_SCHEMES};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::Overview;
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_worker::{
    decode, encode, run_scheme, slowest_first, Analyst, Request, Response, SchemeTask,
};

/// Sends `x` to `analyst` in three parts, as the page does (through the message bytes).
fn send(analyst: &mut Analyst, tensor: u64, x: &[f32]) {
    let third = x.len() / 3;
    for (offset, part) in [
        (0, &x[..third]),
        (third, &x[third..2 * third]),
        (2 * third, &x[2 * third..]),
    ] {
        let request = Request::TensorPart {
            tensor,
            offset,
            total: x.len(),
        };
        let request = decode(&encode(&request)).unwrap();
        assert_eq!(analyst.handle(request, part), None);
    }
}

/// Asks `analyst` for `request` and reads its answer back from the bytes.
fn ask(analyst: &mut Analyst, request: Request) -> Response {
    let answer = analyst
        .handle(decode(&encode(&request)).unwrap(), &[])
        .unwrap();
    decode(&encode(&answer)).unwrap()
}

fn job(generation: u64, tensor: u64, index: usize, scheme: Scheme) -> SchemeTask {
    SchemeTask {
        generation,
        tensor,
        index,
        scheme: scheme.name().into(),
        block: scheme.default_block(),
        double_quant: true,
        part_values: 1 << 12,
        rht: OPTIONS.rht,
        sr: OPTIONS.sr,
    }
}

/// The FP4 options every job asks for (NVFP4 and MXFP4 take them, the others ignore them).
const OPTIONS: Fp4Options = Fp4Options {
    rht: Some(5),
    sr: Some(6),
};

#[test]
fn every_scheme_answered_by_a_worker_is_bit_identical_to_the_page_s_own_run() {
    let mut x = generate(Distribution::Laplace, 7, 1500, 0.05, 21);
    // Non-finite values make NaN and ±inf in the metrics and the error map: they must survive too.
    x[100] = f32::NAN;
    x[4000] = f32::INFINITY;
    let overview = Overview::new(&x);
    let mut analyst = Analyst::default();
    send(&mut analyst, 7, &x);
    assert_eq!(
        ask(
            &mut analyst,
            Request::Overview {
                generation: 3,
                tensor: 7
            }
        ),
        Response::Overview {
            generation: 3,
            overview: overview.clone()
        }
    );
    for (index, scheme) in Scheme::ALL.into_iter().enumerate() {
        let Response::Analysed {
            generation,
            index: got,
            row,
            detail,
        } = ask(&mut analyst, Request::Analyse(job(3, 7, index, scheme)))
        else {
            panic!("{scheme}: no analysis");
        };
        assert_eq!((generation, got), (3, index));
        let run = |opts| {
            run_scheme(
                scheme,
                &x,
                scheme.default_block(),
                true,
                &overview,
                1 << 12,
                opts,
            )
            .unwrap()
        };
        let (want_row, want_detail) = run(OPTIONS);
        let with_options = FP4_SCHEMES.contains(&scheme);
        let plain = encode(&run(Fp4Options::NONE).0);
        assert_eq!(
            plain != encode(&want_row),
            with_options,
            "{scheme}: options"
        );
        // Compared as bytes: NaN is not equal to itself, its bits are.
        assert_eq!(encode(&row), encode(&want_row), "{scheme} row");
        assert_eq!(encode(&detail), encode(&want_detail), "{scheme} detail");
    }
}

#[test]
fn a_tensor_not_held_whole_is_refused_with_a_sentence() {
    let x = vec![0.5f32; 300];
    let mut analyst = Analyst::default();
    let request = Request::TensorPart {
        tensor: 1,
        offset: 0,
        total: 600,
    };
    assert_eq!(analyst.handle(request, &x), None);
    let Response::Failed {
        generation,
        message,
    } = ask(
        &mut analyst,
        Request::Analyse(job(9, 1, 0, Scheme::AbsmaxInt8)),
    )
    else {
        panic!("half a tensor was analysed");
    };
    assert_eq!(generation, 9);
    assert_eq!(
        message,
        "the worker does not hold tensor 1 whole (300 of 600 values)"
    );
    let Response::Failed { message, .. } = ask(
        &mut analyst,
        Request::Overview {
            generation: 9,
            tensor: 2,
        },
    ) else {
        panic!("another tensor's overview was given");
    };
    assert!(message.contains("tensor 2"), "{message}");
}

#[test]
fn an_unknown_scheme_and_unreadable_bytes_are_errors_not_panics() {
    let mut analyst = Analyst::default();
    send(&mut analyst, 1, &[1.0, 2.0, 3.0]);
    let mut bad = job(4, 1, 0, Scheme::Bf16);
    bad.scheme = "q9_9".into();
    let Response::Failed { message, .. } = ask(&mut analyst, Request::Analyse(bad)) else {
        panic!("an unknown scheme was analysed");
    };
    assert!(message.contains("q9_9"), "{message}");
    let err = decode::<Request>(&[0xff, 0x00, 0x13]).unwrap_err();
    assert!(err.starts_with("unreadable lab message"), "{err}");
}

#[test]
fn k_quants_are_handed_out_first_and_every_scheme_once() {
    let order = slowest_first(&Scheme::ALL);
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(sorted, (0..Scheme::ALL.len()).collect::<Vec<_>>());
    let k = Scheme::ALL
        .iter()
        .filter(|s| matches!(s, Scheme::KQuant(_)))
        .count();
    assert!(k > 0);
    assert!(order[..k]
        .iter()
        .all(|&i| matches!(Scheme::ALL[i], Scheme::KQuant(_))));
}

#[test]
fn a_read_request_reads_the_first_tensor_or_the_one_named() {
    let npy =
        bitbudget_math::quant::tensor_io::npy_file("<f4", &[2], &[0, 0, 128, 63, 0, 0, 0, 64]);
    let (index, t) = bitbudget_worker::read_request("x.npy", None, &npy).unwrap();
    assert_eq!(
        (index.len(), t.name.as_str(), t.values.as_slice()),
        (0, "x.npy", &[1.0f32, 2.0][..])
    );
    let header = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.extend_from_slice(&[0, 0, 64, 64, 0, 0, 128, 64]);
    let (index, first) = bitbudget_worker::read_request("m.safetensors", None, &file).unwrap();
    assert_eq!(
        (index.len(), first.name.as_str(), first.values[0]),
        (2, "a", 3.0)
    );
    let (index, b) = bitbudget_worker::read_request("m.safetensors", Some("b"), &file).unwrap();
    assert_eq!((index.len(), b.name.as_str(), b.values[0]), (0, "b", 4.0));
    let err = bitbudget_worker::read_request("m.safetensors", Some("z"), &file).unwrap_err();
    assert!(err.contains('z'), "{err}");
    let empty = bitbudget_math::quant::tensor_io::npy_file("<f4", &[0], &[]);
    assert_eq!(
        bitbudget_worker::read_request("e.npy", None, &empty).unwrap_err(),
        "the tensor is empty"
    );
}
