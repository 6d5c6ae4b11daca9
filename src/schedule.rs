//! The order in which the engine starts jobs. Results never depend on it; the
//! time a run takes does, and so does what a live view shows first.
//!
//! - Breadth first: the first sample of every task, then the second of every
//!   task, and so on. A live run shows an estimate for every task early on, and
//!   the tasks whose samples loop until their timeout are met early instead of
//!   wherever they sit in the file.
//! - A task one of whose candidates runs long (it handed its place on) has its
//!   remaining samples moved to the front: samples of one task tend to behave
//!   alike, and starting the likely long runners early lets their timeouts run
//!   out while the quick candidates are still being evaluated, instead of
//!   after them. They still wait for a worker's place like any other: started
//!   all at once, a cluster of slow but correct solutions would split the cores
//!   between them and time out where one at a time each passes. On the real
//!   HumanEval samples the ten that time out all belong to one task,
//!   two-thirds of the way through the file.

use std::collections::VecDeque;

/// Which job to start next. Not thread-safe by itself; the engine keeps it
/// behind a mutex (one lock per started job).
#[derive(Debug)]
pub struct Schedule {
    /// Every job index, breadth first over tasks.
    order: Vec<usize>,
    /// Next position in `order` to look at.
    cursor: usize,
    /// Jobs moved to the front, in the order they go.
    urgent: VecDeque<usize>,
    /// Whether each job has been handed out.
    taken: Vec<bool>,
    /// The jobs of each task, in plan order.
    by_task: Vec<Vec<usize>>,
    /// Tasks whose remaining jobs were moved to the front already.
    hurried: Vec<bool>,
}

impl Schedule {
    /// A schedule for jobs whose task indices (into `0..tasks`) are `job_tasks`,
    /// in plan order.
    pub fn new(job_tasks: &[usize], tasks: usize) -> Schedule {
        let tasks = tasks.max(job_tasks.iter().map(|t| t + 1).max().unwrap_or(0));
        let mut by_task: Vec<Vec<usize>> = vec![Vec::new(); tasks];
        for (job, &task) in job_tasks.iter().enumerate() {
            by_task[task].push(job);
        }
        let rounds = by_task.iter().map(Vec::len).max().unwrap_or(0);
        let mut order = Vec::with_capacity(job_tasks.len());
        for round in 0..rounds {
            order.extend(by_task.iter().filter_map(|jobs| jobs.get(round)));
        }
        Schedule {
            order,
            cursor: 0,
            urgent: VecDeque::new(),
            taken: vec![false; job_tasks.len()],
            by_task,
            hurried: vec![false; tasks],
        }
    }

    /// The next job to start, or `None` when every job has been handed out.
    pub fn take(&mut self) -> Option<usize> {
        let job = loop {
            if let Some(job) = self.urgent.pop_front() {
                if !self.taken[job] {
                    break job;
                }
                continue;
            }
            let job = *self.order.get(self.cursor)?;
            self.cursor += 1;
            if !self.taken[job] {
                break job;
            }
        };
        self.taken[job] = true;
        Some(job)
    }

    /// A job of `task` runs long: its task's jobs not yet started go next.
    pub fn hurry(&mut self, task: usize) {
        let Some(hurried) = self.hurried.get_mut(task) else {
            return;
        };
        if *hurried {
            return;
        }
        *hurried = true;
        let waiting = self.by_task[task].iter().filter(|&&j| !self.taken[j]);
        self.urgent.extend(waiting);
    }
}

#[cfg(test)]
mod tests {
    use super::Schedule;

    fn drain(s: &mut Schedule) -> Vec<usize> {
        std::iter::from_fn(|| s.take()).collect()
    }

    #[test]
    fn jobs_go_breadth_first_over_tasks() {
        // Tasks 0, 1, 2 with 3, 1 and 2 samples, in plan order.
        let mut s = Schedule::new(&[0, 0, 0, 1, 2, 2], 3);
        assert_eq!(drain(&mut s), vec![0, 3, 4, 1, 5, 2]);
        assert_eq!(s.take(), None);
    }

    #[test]
    fn a_hurried_task_goes_next_and_every_job_still_runs_once() {
        let mut s = Schedule::new(&[0, 0, 0, 1, 1, 1, 2, 2, 2], 3);
        assert_eq!(s.take(), Some(0));
        assert_eq!(s.take(), Some(3));
        assert_eq!(s.take(), Some(6));
        s.hurry(2);
        s.hurry(2);
        assert_eq!(s.take(), Some(7));
        assert_eq!(s.take(), Some(8));
        assert_eq!(drain(&mut s), vec![1, 4, 2, 5]);
        // Hurrying a finished task, or one that does not exist, changes nothing.
        s.hurry(0);
        s.hurry(9);
        assert_eq!(s.take(), None);
    }

    #[test]
    fn tasks_without_jobs_are_skipped() {
        let mut s = Schedule::new(&[2, 2], 4);
        assert_eq!(drain(&mut s), vec![0, 1]);
        let mut empty = Schedule::new(&[], 0);
        assert_eq!(empty.take(), None);
    }
}
