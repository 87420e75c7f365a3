//! A criterion measurement of the benchmark thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`)
//! instead of wall-clock time: on a machine shared with other work, time the thread spends
//! descheduled is not counted, so per-core throughput stays comparable between runs. Shown as
//! durations, like criterion's wall time.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use std::time::Duration;

/// The calling thread's CPU time so far.
#[cfg(not(target_arch = "wasm32"))]
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The benches run natively; wasm builds only type-check them.
#[cfg(target_arch = "wasm32")]
fn thread_cpu_time() -> Duration {
    unreachable!("the benches run natively")
}

/// Thread CPU time as a criterion measurement.
pub struct ThreadCpuTime;

/// Durations are formatted as criterion formats wall time.
static WALL: WallTime = WallTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        thread_cpu_time()
    }

    fn end(&self, started: Duration) -> Duration {
        thread_cpu_time().saturating_sub(started)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

/// `criterion_group!` and `criterion_main!` for the bench function `$target`, measured in the
/// thread's CPU time.
macro_rules! cpu_time_main {
    ($target:path) => {
        criterion::criterion_group! {
            name = benches;
            config = criterion::Criterion::default().with_measurement(cpu_time::ThreadCpuTime);
            targets = $target
        }
        criterion::criterion_main!(benches);
    };
}
