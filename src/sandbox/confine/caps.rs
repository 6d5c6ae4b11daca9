//! Privileges: `no_new_privs`, and under a root host no capabilities at all
//! (effective, permitted, inheritable, ambient, bounding set) with the
//! securebits that stop an exec as uid 0 from granting them back. Every call
//! here runs in the child before exec, on values computed in the host.

use std::io;

const CAPABILITY_VERSION_3: u32 = 0x2008_0522;
/// SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP, SECBIT_KEEP_CAPS_LOCKED and
/// SECBIT_NO_CAP_AMBIENT_RAISE, each with its lock bit.
const SECUREBITS_LOCKED_DOWN: libc::c_ulong = 0b1111_1111 & !(1 << 4);

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The highest capability number the kernel knows (from procfs, read once;
/// 40 today).
pub(crate) fn last_cap() -> libc::c_ulong {
    static LAST: std::sync::OnceLock<libc::c_ulong> = std::sync::OnceLock::new();
    *LAST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(63)
    })
}

/// Sets no_new_privs (needed before Landlock and seccomp without
/// `CAP_SYS_ADMIN`, and it keeps setuid programs from raising privileges).
///
/// # Safety
/// Async-signal-safe: one `prctl`.
pub(crate) unsafe fn no_new_privs() -> io::Result<()> {
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Drops every capability the calling thread holds, for good. Without
/// `CAP_SETPCAP` (an unprivileged host) the bounding set and securebits
/// cannot be changed, and need not be: such a process holds nothing.
///
/// # Safety
/// Async-signal-safe: `prctl` and `capset` with integer arguments and local
/// structures.
pub(crate) unsafe fn drop_all(last_cap: libc::c_ulong) -> io::Result<()> {
    // SAFETY: prctl and capset on the calling thread, with valid structures.
    unsafe {
        for cap in 0..=last_cap {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        libc::prctl(libc::PR_SET_SECUREBITS, SECUREBITS_LOCKED_DOWN, 0, 0, 0);
        let header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header, data.as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
