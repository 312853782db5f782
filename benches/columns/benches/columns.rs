//! Arrow columns and DataFusion functions, timed in pairs against Arrow's
//! and datafusion-spark's own paths (the contestants of each comparison
//! take turns, round after round: see `utf8guard_bench::paired`).
//!
//! Comparisons (`group/label`; each shape is `<lengths>-<text>-<variant>`,
//! see the crate's documentation):
//! - `binary-to-string/<shape>`: `GenericStringArray::try_from_binary`
//!   against `utf8guard_arrow::binary_to_string`, with a third contestant,
//!   `roofline`, that only reads the column's bytes and offsets
//!   (`read_column`): the time no check can beat on one core. Both
//!   conversions take the same column by reference and pay for the same
//!   clone of its three buffer handles (no bytes are copied): Arrow's
//!   `try_from_binary` consumes its input, so it gets `column.clone()`,
//!   and `binary_to_string` clones the same handles inside;
//! - `view-to-string-view/<shape>`: `BinaryViewArray::to_string_view`
//!   against `utf8guard_arrow::binary_view_to_string_view` (the view column
//!   made from the binary one with Arrow's `From`, a builder's layout),
//!   with the roofline `read_views` (the views and the data buffers read
//!   once); the conversions pay for the same clone of the array's handles
//!   (`to_string_view` consumes its input);
//! - `udf/<query>-<table>`: the same SQL query over the same in-memory
//!   table (a million short non-ASCII values in batches of 8192, all valid,
//!   or with one value in a thousand invalid) in a session with
//!   datafusion-spark's `is_valid_utf8` / `make_valid_utf8` and in one with
//!   utf8guard-datafusion's.
//!
//! Every contestant's result is checked against the others' before it is
//! timed. Usage: `columns [--out FILE] [FILTER...]`, as the `paired`
//! target.

use std::sync::Arc;

use arrow_array::{BinaryViewArray, RecordBatch, StringArray};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use utf8guard_bench::paired::Comparison;
use utf8guard_bench::runner::Runner;
use utf8guard_bench::Mode;
use utf8guard_bench_columns::{
    binary_column, damaged, read_column, read_views, Array, Lengths, Pools, Text, Variant,
};

fn conversions(r: &mut Runner, pools: &Pools) {
    for lengths in Lengths::ALL {
        for text in Text::ALL {
            for variant in Variant::ALL {
                let label = format!("{}-{}-{}", lengths.name(), text.name(), variant.name());
                let binary_id = format!("binary-to-string/{label}");
                let view_id = format!("view-to-string-view/{label}");
                if !r.wanted(&binary_id) && !r.wanted(&view_id) {
                    continue;
                }
                let column = binary_column(pools, lengths, text, variant, lengths.count(), 1);
                let bytes = column.value_offsets()[column.len()] - column.value_offsets()[0];
                let bytes = bytes as u64;

                if r.wanted(&binary_id) {
                    let arrow = StringArray::try_from_binary(column.clone()).unwrap();
                    assert_eq!(utf8guard_arrow::binary_to_string(&column).unwrap(), arrow);
                    let mut cmp = Comparison::new("binary-to-string", &label, bytes);
                    cmp.add("try_from_binary", || {
                        StringArray::try_from_binary(column.clone()).map_or(0, |a| a.len() as u64)
                    });
                    cmp.add("utf8guard", || {
                        utf8guard_arrow::binary_to_string(&column).map_or(0, |a| a.len() as u64)
                    });
                    cmp.add("roofline", || read_column(&column));
                    r.run(cmp, 2.0);
                }

                if r.wanted(&view_id) {
                    let views = BinaryViewArray::from(&column);
                    let arrow = views.clone().to_string_view().unwrap();
                    assert_eq!(
                        utf8guard_arrow::binary_view_to_string_view(&views).unwrap(),
                        arrow
                    );
                    let mut cmp = Comparison::new("view-to-string-view", &label, bytes);
                    cmp.add("to_string_view", || {
                        views.clone().to_string_view().map_or(0, |a| a.len() as u64)
                    });
                    cmp.add("utf8guard", || {
                        utf8guard_arrow::binary_view_to_string_view(&views)
                            .map_or(0, |a| a.len() as u64)
                    });
                    cmp.add("roofline", || read_views(&views));
                    r.run(cmp, 2.0);
                }
            }
        }
    }
}

/// A session with the table `t` (column `col`) and either
/// datafusion-spark's functions or utf8guard's.
fn session(table: &Arc<MemTable>, ours: bool) -> SessionContext {
    let ctx = SessionContext::new();
    if ours {
        utf8guard_datafusion::register(&ctx);
    } else {
        ctx.register_udf(
            datafusion_spark::function::string::is_valid_utf8()
                .as_ref()
                .clone(),
        );
        ctx.register_udf(
            datafusion_spark::function::string::make_valid_utf8()
                .as_ref()
                .clone(),
        );
    }
    ctx.register_table("t", Arc::clone(table) as _).unwrap();
    ctx
}

/// The first value of the first column of a query's result, as text.
fn answer(runtime: &tokio::runtime::Runtime, ctx: &SessionContext, sql: &str) -> String {
    runtime.block_on(async {
        let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        datafusion::arrow::util::display::array_value_to_string(batches[0].column(0), 0).unwrap()
    })
}

fn functions(r: &mut Runner, pools: &Pools) {
    let runtime = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    let column = binary_column(
        pools,
        Lengths::Short,
        Text::NonAscii,
        Variant::Plain,
        1_000_000,
        5,
    );
    let tables = [
        ("valid", column.clone()),
        ("0.1%-invalid", damaged(&column, 6)),
    ];
    let queries = [
        (
            "is_valid_utf8",
            "SELECT count(*) FROM t WHERE is_valid_utf8(col)",
        ),
        (
            "make_valid_utf8",
            "SELECT count(make_valid_utf8(col)) FROM t",
        ),
    ];
    for (table_name, values) in tables {
        let bytes = values.value_data().len() as u64;
        let values: Arc<dyn Array> = Arc::new(values);
        let batches: Vec<RecordBatch> = (0..values.len())
            .step_by(8192)
            .map(|at| {
                let rows = values.slice(at, 8192.min(values.len() - at));
                RecordBatch::try_from_iter([("col", rows)]).unwrap()
            })
            .collect();
        let table = Arc::new(MemTable::try_new(batches[0].schema(), vec![batches]).unwrap());
        let (spark, ours) = (session(&table, false), session(&table, true));
        for (name, sql) in queries {
            let label = format!("{name}-{table_name}");
            if !r.wanted(&format!("udf/{label}")) {
                continue;
            }
            assert_eq!(
                answer(&runtime, &spark, sql),
                answer(&runtime, &ours, sql),
                "{sql}"
            );
            let mut cmp = Comparison::new("udf", &label, bytes);
            let rt = &runtime;
            let run = move |ctx: &SessionContext| {
                rt.block_on(async {
                    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
                    batches[0].num_rows() as u64
                })
            };
            cmp.add("datafusion-spark", || run(&spark));
            cmp.add("utf8guard", || run(&ours));
            r.run(cmp, 3.0);
        }
    }
}

fn main() {
    let mut r = Runner::from_args("columns");
    let pools = Pools::load();
    eprintln!(
        "columns: kernel {}, {} mode, text from {}",
        utf8guard::active_kernel(),
        Mode::from_env().name(),
        pools.source
    );
    conversions(&mut r, &pools);
    functions(&mut r, &pools);
}
