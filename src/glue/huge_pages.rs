//! Transparent huge pages for big arrays (`bf-huge-pages`): a big filter then costs one TLB
//! entry per 2 MiB instead of 512, which is most of what a lookup costs once the filter is
//! larger than the caches. Arrays are advised when loaded or once most of their pages were
//! written (when they become dense, `Memory::dense`), never fresh: a fresh array advised
//! before its first write faults in 2 MiB per item written at random, with the kernel's
//! compaction behind each fault, which stalls the server for seconds on a huge sparse array.
//! They are unadvised before they go back to the server's allocator; where huge pages cannot
//! be had, nothing is done and the log says why once.

use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A transparent huge page (x86-64, aarch64 with 4 KiB pages).
pub const HUGE_PAGE: usize = 2 << 20;

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
/// which is most of what a lookup costs once the filter is larger than the caches. Arrays
/// are advised once mostly written (dense, or loaded from RDB): their pages still unmapped
/// then fault in huge, the resident ones are collapsed later by khugepaged. Where huge
/// pages cannot be had, nothing is done.
pub fn advise_huge_pages(bytes: &[u8]) {
    if bytes.len() < HUGE_PAGE || !super::settings::huge_pages() {
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
pub fn unadvise_huge_pages(ptr: *mut u8, size: usize) {
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
