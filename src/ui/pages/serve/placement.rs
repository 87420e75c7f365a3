//! llama.cpp's placement as a dry run of loading: block by block, what goes to the GPU and what
//! stays on the host, and which rule put it there (`n_gpu_layers`, `-ot`, `--n-cpu-moe`).

use crate::ui::pages::serve::ServeState;
use bitbudget_math::numbers::{format_bytes, Units};
use bitbudget_math::serve::tensor_placement::placement_rows;
use leptos::prelude::*;

/// The placement table, closed until asked for (llama.cpp only).
#[component]
pub fn TensorPlacement() -> impl IntoView {
    let state = expect_context::<ServeState>();
    let gib = |b: u64| format_bytes(b, Units::Gib);
    move || {
        state.good.get().and_then(|(_, r)| r.placement).map(|pl| {
            let rows = placement_rows(&pl.tensors);
            view! {
                <details class="serve-placement" data-testid="serve-tensors">
                    <summary>{format!("Where llama.cpp puts each of the {} tensors", pl.tensors.len())}</summary>
                    <div class="table-scroll">
                        <table class="breakdown">
                            <thead><tr><th scope="col">"Tensors"</th><th scope="col" class="num">"GPU"</th><th scope="col" class="num">"Host"</th><th scope="col">"Why"</th></tr></thead>
                            <tbody>
                                {rows.into_iter().map(|r| view! {
                                    <tr>
                                        <th scope="row">{r.label}</th>
                                        <td class="num">{gib(r.gpu)}</td>
                                        <td class="num">{gib(r.host)}</td>
                                        <td class="why">{r.why}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <p class="field-note">"A run of blocks shows its total. The KV cache and the compute buffer follow the blocks n_gpu_layers offloads, not the overrides."</p>
                </details>
            }
        })
    }
}
