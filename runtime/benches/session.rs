//! What the protocol engine costs per message, in process, with no transport: the session
//! takes the exact line the stdio benchmark sends and hands its answer to an outbox that only
//! counts bytes. This is the part of a round trip a transport cannot hide.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tooltable::context::Transport;
use tooltable::layer::{CALLS_TARGET, CallLog};
use tooltable::transport::{Outbox, Outgoing, RequestContext, Session};
use tooltable::{Error, Server, table, tool};

#[derive(Deserialize, JsonSchema)]
struct AddNumbers {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

/// Adds two numbers.
#[tool(read_only)]
async fn add_numbers(args: AddNumbers) -> Result<Sum, Error> {
    Ok(Sum { sum: args.a + args.b })
}

/// The system allocator, counting allocations: each one is a cost per message worth knowing.
struct CountingAlloc;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

struct Counting(Arc<AtomicUsize>);

impl Outbox for Counting {
    fn send(&self, outgoing: Outgoing) {
        if let Outgoing::Message { json, .. } = outgoing {
            self.0.fetch_add(json.len(), Ordering::Relaxed);
        }
    }
}

const CALLS: usize = 200_000;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let _in_runtime = runtime.enter();
    let written = Arc::new(AtomicUsize::new(0));
    let context = RequestContext::new(Transport::Stdio);
    // A session past the handshake, on a server with no layer or with the call log.
    let session_of = |layered: bool| {
        let mut builder = Server::builder(()).tools(table![add_numbers]);
        if layered {
            builder = builder.layer(CallLog);
        }
        let session = Session::new(&builder.build().expect("the table builds"), Counting(Arc::clone(&written)));
        session.handle_bytes(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#, &context);
        session.handle_bytes(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, &context);
        session
    };
    let (session, logged) = (session_of(false), session_of(true));

    let call = |id: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add_numbers","arguments":{{"a":1,"b":2}}}}}}"#
        )
    };
    let lines: Vec<String> = (1..=CALLS).map(call).collect();
    let pings: Vec<String> =
        (1..=CALLS).map(|id| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).collect();
    let time = |what: &str, lines: &[String], f: &dyn Fn(&[u8])| {
        let allocations = ALLOCATIONS.load(Ordering::Relaxed);
        let start = Instant::now();
        for line in lines {
            f(black_box(line.as_bytes()));
        }
        let ns = start.elapsed().as_nanos() as f64 / lines.len() as f64;
        let allocations = (ALLOCATIONS.load(Ordering::Relaxed) - allocations) as f64 / lines.len() as f64;
        println!("{what:<44} {ns:>8.0} ns {allocations:>6.1} allocations per message");
    };
    println!("in process, {CALLS} messages each, one session, answers counted and dropped:");
    time("decode a tools/call line (jsonrpc::decode)", &lines, &|l| {
        drop(black_box(tooltable::transport::jsonrpc::decode(l)))
    });
    time("ping: decode, answer", &pings, &|l| session.handle_bytes(l, &context));
    time("tools/call add_numbers: decode ... answer", &lines, &|l| session.handle_bytes(l, &context));
    // The standard command line's subscriber, writing where nothing reads: its filter with
    // RUST_LOG=warn, then its default filter, which lets the call log through.
    let subscriber = |filter: &str| {
        let filter = tracing_subscriber::EnvFilter::new(filter);
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::sink).finish()
    };
    tracing::subscriber::with_default(subscriber("warn"), || {
        time("  the same, with the call log filtered out", &lines, &|l| logged.handle_bytes(l, &context));
    });
    tracing::subscriber::with_default(subscriber(&format!("warn,{CALLS_TARGET}=info")), || {
        time("  the same, with the call log written", &lines, &|l| logged.handle_bytes(l, &context));
    });
    assert!(written.load(Ordering::Relaxed) > 0);
}
