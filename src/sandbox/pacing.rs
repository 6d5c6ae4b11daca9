//! Pacing a running candidate so that a long runner does not hold a core the
//! others need and a slow but correct one still gets the CPU it needs: how a
//! candidate has spent its time (from `/proc`), and lowering its priority.

use std::time::Duration;

/// A candidate still running after this long is looked at, and again at most
/// this long after each look: one that has slept for more than half of its
/// time (neither running nor waiting for a CPU: it mostly waits) gives its
/// worker place to the next one (`on_hand_off`), at full priority.
pub(super) const CHECK_EVERY: Duration = Duration::from_millis(250);
/// The share of its timeout a candidate may spend on a CPU at full priority:
/// half, what the official human-eval harness (four workers) gives each
/// candidate on a two-core machine when all four loop. Past that it is lowered
/// to [`DEMOTED_NICE`] and gives its worker place on, so one looping until its
/// timeout does not hold a core the others need, while a slow but correct
/// solution always gets at least that much CPU before its deadline. A
/// candidate needing more CPU than this is timing-sensitive in any harness.
pub(super) const FULL_PRIORITY_SHARE: u32 = 2;
/// The niceness of a candidate past its full-priority CPU time.
pub(super) const DEMOTED_NICE: libc::c_int = 19;
/// Sets the niceness of a candidate's process group and, where the kernel
/// groups sessions for scheduling (`sched_autogroup`, on by default on most
/// desktops; a candidate leads its own session), of its session's group: a
/// process's niceness only ranks it within that group. Only done once the
/// candidate has had its full-priority CPU time (lowering it after a second of
/// wall clock made slow but correct solutions time out on a busy machine).
pub(super) fn lower_priority(pgid: libc::pid_t, nice: libc::c_int) {
    // SAFETY: changing the priority of our own candidate's group; a group that
    // is already gone makes it fail harmlessly.
    unsafe { libc::setpriority(libc::PRIO_PGRP, pgid as libc::id_t, nice) };
    #[cfg(target_os = "linux")]
    {
        // The candidate is not reaped before supervision ends, so its id is
        // still its own. Without autogroups the file is absent.
        let _ = std::fs::write(format!("/proc/{pgid}/autogroup"), nice.to_string());
    }
}

/// What the supervisor does after a look at a running candidate that is not
/// demoted yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Step {
    /// Lower its priority to [`DEMOTED_NICE`]: it has had its full-priority
    /// CPU time.
    pub demote: bool,
    /// Give its worker place to the next candidate (once).
    pub hand_off: bool,
    /// When to look again.
    pub next_look: Duration,
}

/// The pacing policy: a candidate `elapsed` into its run that has `used`
/// this much, with `full_priority_cpu` of CPU at full priority, whose place
/// was `handed_off` already or not.
pub(super) fn pace(
    elapsed: Duration,
    used: Usage,
    full_priority_cpu: Duration,
    handed_off: bool,
) -> Step {
    let demote = used.cpu >= full_priority_cpu;
    // Asleep (neither running nor waiting for a CPU) for more than half of
    // its time: it mostly waits.
    let asleep = elapsed.saturating_sub(used.awake);
    let hand_off = !handed_off && (demote || asleep * 2 > elapsed);
    // It cannot reach its full-priority CPU time sooner.
    let to_full = full_priority_cpu.saturating_sub(used.cpu);
    Step {
        demote,
        hand_off,
        next_look: to_full.clamp(Duration::from_millis(10), CHECK_EVERY),
    }
}

/// How a candidate has spent its time so far.
#[derive(Debug, Clone, Copy)]
pub(super) struct Usage {
    /// CPU time of the whole process (all its threads).
    pub cpu: Duration,
    /// Time its main thread was running or ready to run (waiting for a CPU),
    /// and at least the CPU time of all its threads: the rest of its life it
    /// slept.
    pub awake: Duration,
}

/// How process `pid` has spent its time, from `/proc/<pid>/stat` and
/// `/proc/<pid>/schedstat`. Where either cannot be read, all of `elapsed`
/// counts (as CPU time, or as awake): never less than the real figure.
pub(super) fn usage(pid: libc::pid_t, elapsed: Duration) -> Usage {
    #[cfg(target_os = "linux")]
    {
        let cpu = process_cpu(pid).unwrap_or(elapsed);
        // A main thread that sleeps while others compute is no sleeper: the
        // process's CPU time counts as awake too.
        let awake = main_thread_awake(pid).unwrap_or(elapsed).max(cpu);
        Usage { cpu, awake }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        Usage {
            cpu: elapsed,
            awake: elapsed,
        }
    }
}

/// User and system time of all of `pid`'s threads (a zombie's too: it is
/// read at the end of a candidate, before it is reaped).
#[cfg(target_os = "linux")]
pub(super) fn process_cpu(pid: libc::pid_t) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which may hold spaces and
    // parentheses: state is the first, utime the twelfth, stime the next.
    let mut fields = stat.get(stat.rfind(')')? + 1..)?.split_ascii_whitespace();
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = u64::try_from(ticks).ok().filter(|&t| t > 0)?;
    let total = utime.saturating_add(stime);
    Some(Duration::from_nanos(
        total.saturating_mul(1_000_000_000) / ticks,
    ))
}

/// Time `pid`'s main thread spent on a CPU plus waiting for one.
#[cfg(target_os = "linux")]
fn main_thread_awake(pid: libc::pid_t) -> Option<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    let mut fields = text.split_ascii_whitespace().map(str::parse::<u64>);
    let running = fields.next()?.ok()?;
    let queued = fields.next()?.ok()?;
    Some(Duration::from_nanos(running.saturating_add(queued)))
}

/// CPU time is read from `/proc`, which only Linux has.
#[cfg(not(target_os = "linux"))]
pub(super) fn process_cpu(_pid: libc::pid_t) -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn used(cpu: u64, awake: u64) -> Usage {
        Usage {
            cpu: MS * cpu as u32,
            awake: MS * awake as u32,
        }
    }

    #[test]
    fn a_busy_candidate_keeps_its_place_and_priority_until_its_full_share() {
        let full = MS * 1500;
        let s = pace(MS * 600, used(590, 600), full, false);
        assert_eq!(
            (s.demote, s.hand_off, s.next_look),
            (false, false, CHECK_EVERY)
        );
        // Close to its share: looked at again when it can first reach it.
        let s = pace(MS * 1480, used(1470, 1480), full, false);
        assert_eq!((s.demote, s.hand_off, s.next_look), (false, false, MS * 30));
    }

    #[test]
    fn at_its_full_share_it_is_demoted_and_hands_its_place_on_once() {
        let full = MS * 1500;
        let s = pace(MS * 1600, used(1500, 1600), full, false);
        assert_eq!((s.demote, s.hand_off, s.next_look), (true, true, MS * 10));
        let s = pace(MS * 1600, used(1500, 1600), full, true);
        assert_eq!((s.demote, s.hand_off), (true, false));
    }

    #[test]
    fn a_sleeper_hands_its_place_on_at_full_priority() {
        let full = MS * 1500;
        // Awake 100 ms of 500: asleep more than half its time.
        let s = pace(MS * 500, used(80, 100), full, false);
        assert_eq!((s.demote, s.hand_off), (false, true));
        // Awake exactly half: not yet.
        let s = pace(MS * 500, used(200, 250), full, false);
        assert_eq!((s.demote, s.hand_off), (false, false));
    }

    #[test]
    fn a_candidate_waiting_for_a_cpu_is_not_a_sleeper() {
        // Its CPU time is low, but it was ready to run (awake) all along.
        let s = pace(MS * 800, used(100, 800), MS * 1500, false);
        assert_eq!((s.demote, s.hand_off), (false, false));
    }
}
