//! The Rust heap on Redis's allocator, so filters count in `used_memory` and `maxmemory`.
//!
//! Unlike the crate's `RedisAlloc`, allocation goes through `RedisModule_TryAlloc` where the
//! server has it (Redis ≥ 7.4, Valkey): a failed allocation returns null instead of killing
//! the server, so the core's `try_reserve` paths can answer "insufficient memory". It makes no
//! assumption about the server's malloc beyond 16-byte alignment (some builds use libc's). Zeroed
//! allocations go to the server's calloc, which maps fresh pages for large blocks: a big
//! filter costs no time and no resident memory until its bits are set.
//!
//! Every allocation is counted (`bf_heap_allocations` in `INFO bf`), which is how the tests
//! prove that the single-item commands allocate nothing. Bit arrays of 2 MiB or more may be
//! backed by transparent huge pages (`bf-huge-pages`, see [`advise_huge_pages`]).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::CStr;
use std::os::raw::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

use redis_module::raw;

use crate::core::Memory;

/// The module's global allocator.
pub struct BloomAlloc;

/// Every allocator a server may be built with (jemalloc, libc malloc, tcmalloc) returns
/// blocks aligned to at least this; larger alignments need [`over_aligned`].
const MALLOC_ALIGN: usize = 16;

/// Raw blocks from the server: `TryAlloc`/`TryCalloc` where it has them (Redis ≥ 7.4, Valkey),
/// which return null on failure, else the aborting `Alloc`/`Calloc`.
fn server_alloc(size: usize, zeroed: bool) -> *mut u8 {
    // SAFETY: the API pointers are set by RedisModule_Init before any allocation of ours;
    // each is called with the arguments its C declaration takes.
    unsafe {
        if zeroed {
            match (raw::RedisModule_TryCalloc, raw::RedisModule_Calloc) {
                (Some(try_calloc), _) => try_calloc(1, size).cast(),
                (None, Some(calloc)) => calloc(1, size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        } else {
            match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
                (Some(try_alloc), _) => try_alloc(size).cast(),
                (None, Some(alloc)) => alloc(size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        }
    }
}

fn server_free(ptr: *mut u8) {
    // SAFETY: `ptr` came from `server_alloc`, i.e. from the server's allocator.
    unsafe {
        if let Some(free) = raw::RedisModule_Free {
            free(ptr.cast::<c_void>());
        }
    }
}

/// A block of `layout` aligned beyond [`MALLOC_ALIGN`]: `align` more bytes are taken, the
/// block starts at the first aligned address past the server's pointer, and that pointer is
/// kept in the word just before the block, where [`over_aligned_base`] finds it to free it.
/// (libc malloc aligns to 16 only, and SIMD code in std and its dependencies asks for 32.)
fn over_aligned(layout: Layout, zeroed: bool) -> *mut u8 {
    let Some(size) = layout.size().checked_add(layout.align()) else {
        return std::ptr::null_mut();
    };
    let base = server_alloc(size, zeroed);
    if base.is_null() {
        return base;
    }
    // Between 16 and `align` bytes past `base` (base is 16-aligned, align ≥ 32): room for the
    // pointer, and the block's `layout.size()` bytes still end inside the allocation.
    let offset = layout.align() - (base as usize & (layout.align() - 1));
    // SAFETY: `offset` ≤ `align`, so both pointers stay inside the `size + align` bytes
    // allocated; the word before the block is ≥ 8 bytes past `base`, and 8-aligned.
    unsafe {
        let block = base.add(offset);
        block.cast::<*mut u8>().sub(1).write(base);
        block
    }
}

/// The server pointer behind a block from [`over_aligned`].
///
/// # Safety
/// `block` must come from `over_aligned`.
unsafe fn over_aligned_base(block: *mut u8) -> *mut u8 {
    // SAFETY: `over_aligned` wrote the base pointer in the word before the block.
    unsafe { block.cast::<*mut u8>().sub(1).read() }
}

/// Allocations made through [`BloomAlloc`] since the module loaded.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// How many allocations the module has made since it loaded (`realloc` counts as one).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

// SAFETY: every block is obtained from and returned to the server's allocator, which is
// thread-safe; blocks are aligned as their layout asks (by the allocator up to 16, by
// `over_aligned` beyond); a null return is how GlobalAlloc reports failure.
unsafe impl GlobalAlloc for BloomAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // One uncontended atomic add per allocation, beside the server's own accounting of
        // the block; the commands whose speed matters allocate nothing at all.
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if layout.align() <= MALLOC_ALIGN {
            server_alloc(layout.size(), false)
        } else {
            over_aligned(layout, false)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if layout.align() <= MALLOC_ALIGN {
            server_alloc(layout.size(), true)
        } else {
            over_aligned(layout, true)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= HUGE_PAGE {
            unadvise_huge_pages(ptr, layout.size());
        }
        if layout.align() <= MALLOC_ALIGN {
            server_free(ptr);
        } else {
            // SAFETY: blocks of this alignment come from `over_aligned`.
            server_free(unsafe { over_aligned_base(ptr) });
        }
    }
}

/// Where the arrays of the command running in `ctx` come from: lazily zeroed pages, each
/// filter bounded by the machine's physical memory and by the operator's
/// `bf-memory-usage-limit` (`config::memory_limit`). Servers before Redis 7.4 have no
/// fallible calloc, and with the overcommit Redis recommends even an absurd size would be
/// granted and then fault the server to death as its bits are set; a filter no machine of
/// this one's memory can hold is refused instead (`ERR Insufficient memory to create filter`).
pub fn memory(ctx: *mut raw::RedisModuleCtx) -> Memory {
    Memory {
        zeroed: lazy_zeroed,
        available: physical_memory(),
        limit: super::config::memory_limit(ctx),
    }
}

/// Zero-filled bytes from the server's calloc, which maps fresh pages for large blocks: a big
/// filter costs no time and no resident memory until its bits are set.
fn lazy_zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a nonzero size.
    let bytes = unsafe { std::alloc::alloc_zeroed(layout) };
    if bytes.is_null() {
        return None;
    }
    // SAFETY: `bytes` is a fresh, zeroed allocation of exactly `len` bytes from the global
    // allocator with the layout of `[u8; len]`, which is what the Vec will free it with.
    let bytes = unsafe { Vec::from_raw_parts(bytes, len, len) };
    // Before the first touch, so that the pages fault in huge where they can.
    advise_huge_pages(&bytes);
    Some(bytes)
}

/// A transparent huge page (x86-64, aarch64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Bytes advised `MADV_HUGEPAGE` since the module loaded.
static HUGE_PAGES_ADVISED: AtomicU64 = AtomicU64::new(0);
/// Whether the reason huge pages cannot be had was logged.
static UNAVAILABLE_LOGGED: AtomicBool = AtomicBool::new(false);

/// Bytes advised huge pages since the module loaded.
pub fn huge_pages_advised() -> u64 {
    HUGE_PAGES_ADVISED.load(Ordering::Relaxed)
}

/// Why transparent huge pages cannot be had: the value `INFO bf` shows, and the log's words.
pub struct Unavailable {
    pub info: &'static CStr,
    why: &'static str,
}

const THP_NEVER: Unavailable = Unavailable {
    info: c"unavailable (transparent huge pages: never)",
    why: "the system setting of transparent huge pages is never",
};
const THP_ALWAYS: Unavailable = Unavailable {
    info: c"unavailable (transparent huge pages: always, which the server turns off)",
    why: "the system setting of transparent huge pages is always, and the server turns them \
          off for its whole process (disable-thp), which no advice undoes",
};
const THP_DISABLED: Unavailable = Unavailable {
    info: c"unavailable (transparent huge pages disabled for this process)",
    why: "transparent huge pages are disabled for this process (as the server does with \
          disable-thp when the system setting is always)",
};

/// Why transparent huge pages cannot be had here, or `None` when they can.
///
/// Linux gives them to advised memory unless the system setting is `never`; with `always` it
/// gives them to all memory, but servers then turn them off for their whole process
/// (`disable-thp`, on by default: `prctl(PR_SET_THP_DISABLE)`), which defeats any advice. The
/// server does that after loading modules and data, so the process flag is read each time.
pub fn huge_pages_unavailable() -> Option<Unavailable> {
    // SAFETY: PR_GET_THP_DISABLE takes no pointer and only reads the process's flag.
    if unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) } == 1 {
        return Some(THP_DISABLED);
    }
    // Read into a buffer on the stack: INFO asks too, and it allocates nothing.
    let mut setting = [0u8; 64];
    let mut file = std::fs::File::open("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    let len = std::io::Read::read(&mut file, &mut setting).ok()?;
    unavailable_under(setting.get(..len)?)
}

/// Why the system setting (the text of `transparent_hugepage/enabled`, the selected word in
/// brackets) keeps advised memory from huge pages, or `None` when it does not.
fn unavailable_under(setting: &[u8]) -> Option<Unavailable> {
    let selected = |word: &[u8]| setting.windows(word.len()).any(|w| w == word);
    if selected(b"[never]") {
        Some(THP_NEVER)
    } else if selected(b"[always]") {
        Some(THP_ALWAYS)
    } else {
        None
    }
}

/// Says once in the server log why `bf-huge-pages` has no effect, if it has none.
pub fn log_huge_pages_unavailable() {
    if let Some(reason) = huge_pages_unavailable() {
        if !UNAVAILABLE_LOGGED.swap(true, Ordering::Relaxed) {
            redis_module::logging::log_notice(format!(
                "bf-huge-pages cannot apply: {}; big filters use normal pages",
                reason.why
            ));
        }
    }
}

/// Asks the kernel to back `bytes` with transparent huge pages when it is at least 2 MiB and
/// `bf-huge-pages` is on: the 2 MiB-aligned part of it (start rounded up, end down) is
/// advised `MADV_HUGEPAGE`. A big filter then costs one TLB entry per 2 MiB instead of 512,
/// which is most of what a lookup costs once the filter is larger than the caches. Fresh
/// arrays are advised before their first touch; resident ones (loaded from RDB) are
/// collapsed later by khugepaged. Where huge pages cannot be had, nothing is done.
pub fn advise_huge_pages(bytes: &[u8]) {
    if bytes.len() < HUGE_PAGE || !super::config::huge_pages() {
        return;
    }
    let Some((start, len)) = huge_range(bytes.as_ptr(), bytes.len()) else {
        return;
    };
    if huge_pages_unavailable().is_some() {
        log_huge_pages_unavailable();
        return;
    }
    // SAFETY: the range lies inside `bytes`, memory this process owns; MADV_HUGEPAGE only
    // changes how its pages are backed, never their contents.
    if unsafe { libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE) } == 0 {
        HUGE_PAGES_ADVISED.fetch_add(len as u64, Ordering::Relaxed);
    }
}

/// Before a block of 2 MiB or more goes back to the server's allocator: takes back any huge
/// page advice from its aligned part. The allocator keeps the address range and reuses it for
/// small blocks, which under the advice would fault in 2 MiB at a time. (`MADV_NOHUGEPAGE` is
/// what unadvised memory already gets under the `madvise` system setting, the only one under
/// which advice is given.)
fn unadvise_huge_pages(ptr: *mut u8, size: usize) {
    if huge_pages_advised() == 0 {
        return;
    }
    if let Some((start, len)) = huge_range(ptr, size) {
        // SAFETY: as in `advise_huge_pages`: advice on memory still owned, contents kept.
        unsafe { libc::madvise(start.cast(), len, libc::MADV_NOHUGEPAGE) };
    }
}

/// The whole huge pages inside `len` bytes at `ptr`, as (start, length).
fn huge_range(ptr: *const u8, len: usize) -> Option<(*mut u8, usize)> {
    let begin = (ptr as usize).checked_next_multiple_of(HUGE_PAGE)?;
    let end = (ptr as usize).checked_add(len)? & !(HUGE_PAGE - 1);
    (end > begin).then(|| {
        (
            ptr.wrapping_add(begin - ptr as usize).cast_mut(),
            end - begin,
        )
    })
}

/// Bytes of RAM in this machine (read once: it does not change under a running server).
fn physical_memory() -> u64 {
    static BYTES: OnceLock<u64> = OnceLock::new();
    *BYTES.get_or_init(|| {
        // SAFETY: sysconf only reads system information.
        let (pages, page_size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        u64::try_from(pages)
            .unwrap_or(0)
            .saturating_mul(u64::try_from(page_size).unwrap_or(0))
    })
}
