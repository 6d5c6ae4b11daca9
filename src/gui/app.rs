//! The eframe app: persisted state, the workbench, view state and the command
//! queue. `logic` applies the workbench's updates and input; `ui` only places
//! panels.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::command::{Command, Export, FileTarget};
use super::dialogs::Dialogs;
use super::screenshot::Screenshot;
use super::state::{AppState, RecentKind, STORAGE_KEY, ThemeChoice};
use super::view::{CompareView, GridView, Only};
use super::{Launch, theme};
use crate::workbench::{Target, Workbench};

/// Time spent applying engine events per frame before yielding to drawing.
const DRAIN_BUDGET: Duration = Duration::from_millis(8);

/// Longest wait before results that arrived are drawn.
pub(super) const RESULT_REPAINT: Duration = Duration::from_millis(50);

/// Keyboard shortcuts, shown in tooltips.
pub mod shortcut {
    use super::*;
    /// Open a task file.
    pub const OPEN_TASKS: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
    /// Open a generations file.
    pub const OPEN_GENERATIONS: KeyboardShortcut =
        KeyboardShortcut::new(Modifiers::COMMAND, Key::G);
    /// Open a run file.
    pub const OPEN_RUN: KeyboardShortcut =
        KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::O);
    /// Run.
    pub const RUN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::R);
    /// Run (alternative).
    pub const RUN_F5: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F5);
    /// Cancel.
    pub const CANCEL: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::Escape);
    /// Export the candidates CSV.
    pub const EXPORT_CSV: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::E);
    /// Save the run file.
    pub const SAVE_RUN: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
}

/// Which tab the detail panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetailTab {
    /// The program that ran.
    #[default]
    Code,
    /// The raw generation.
    Generation,
    /// Each assertion with its mark.
    Assertions,
    /// Captured stdout and stderr.
    Output,
    /// The exact harness payload.
    Payload,
}

/// The pass@k calculator's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calculator {
    /// Samples.
    pub n: u32,
    /// Correct samples.
    pub c: u32,
    /// k.
    pub k: u32,
}

impl Default for Calculator {
    fn default() -> Self {
        Calculator { n: 10, c: 3, k: 5 }
    }
}

/// The desktop app.
pub struct App {
    /// Persisted state.
    pub state: AppState,
    /// Inputs, plan, run, results, derived figures, baseline, notices.
    pub workbench: Workbench,
    /// Results grid view.
    pub grid: GridView,
    /// Detail panel tab.
    pub detail_tab: DetailTab,
    /// pass@k calculator inputs.
    pub calculator: Calculator,
    /// Settings window open?
    pub show_settings: bool,
    /// Calibration window open?
    pub show_calibration: bool,
    /// The Compare window's filter.
    pub compare_view: CompareView,
    /// Path typed or pasted into the Open menu.
    pub path_input: String,
    /// The offer to resume an interrupted run to a run file, while open.
    pub resume_offer: Option<crate::workbench::ResumeOffer>,
    pub(super) commands: Vec<Command>,
    pub(super) dialogs: Dialogs,
    pub(super) screenshot: Option<Screenshot>,
    run_on_start: bool,
    applied_theme: Option<ThemeChoice>,
}

impl App {
    /// Builds the app: restores persisted state, loads the launch files (or the
    /// demo set: no file at all) and queues a run if asked.
    pub fn new(cc: &eframe::CreationContext<'_>, launch: Launch) -> App {
        let state: AppState = cc
            .storage
            .and_then(|s| eframe::get_value(s, STORAGE_KEY))
            .unwrap_or_default();
        cc.egui_ctx.all_styles_mut(|style| {
            for (text_style, font) in style.text_styles.iter_mut() {
                if matches!(
                    text_style,
                    egui::TextStyle::Body | egui::TextStyle::Button | egui::TextStyle::Monospace
                ) {
                    font.size = theme::size::BODY_TEXT;
                }
            }
        });
        cc.egui_ctx.set_zoom_factor(state.zoom());
        let mut workbench = Workbench::new(&state.settings.python);
        let ctx = cc.egui_ctx.clone();
        workbench.set_waker(Arc::new(move || ctx.request_repaint()));
        let mut app = App {
            state,
            workbench,
            grid: GridView::default(),
            detail_tab: DetailTab::default(),
            calculator: Calculator::default(),
            show_settings: false,
            show_calibration: false,
            compare_view: CompareView::default(),
            path_input: String::new(),
            resume_offer: None,
            commands: Vec::new(),
            dialogs: Dialogs::new(),
            screenshot: launch.screenshot.map(Screenshot::new),
            run_on_start: launch.run,
            applied_theme: None,
        };
        let files = [
            (Target::Tasks, launch.tasks),
            (Target::Generations, launch.generations),
            (Target::Baseline, launch.baseline),
            (Target::Run, launch.run_file),
        ];
        if files.iter().all(|(_, path)| path.is_none()) {
            app.workbench.load_demo();
        }
        for (target, path) in files {
            if let Some(path) = path {
                app.workbench.open(target, path);
            }
        }
        app.workbench.refresh();
        app
    }

    /// Queues a command (panels and tests use this).
    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// Remembers a file the workbench opened; a new set of results gets a
    /// fresh grid.
    fn opened(&mut self, target: Target, path: PathBuf) {
        let kind = match target {
            Target::Tasks => RecentKind::Tasks,
            Target::Generations => RecentKind::Generations,
            Target::Run | Target::Baseline | Target::Any => RecentKind::Run,
        };
        if target != Target::Baseline {
            self.grid = GridView::default();
        }
        self.state.remember(kind, path);
    }

    /// Applies queued commands.
    pub(super) fn apply_commands(&mut self, ctx: &egui::Context) {
        for command in std::mem::take(&mut self.commands) {
            self.apply(ctx, command);
        }
    }

    fn apply(&mut self, ctx: &egui::Context, command: Command) {
        match command {
            Command::OpenDialog(target) => {
                if let Err(e) = self.dialogs.open(ctx, target) {
                    self.workbench.notify(e, true);
                }
            }
            Command::SaveDialog(export) => {
                if let Err(e) = self.dialogs.save(ctx, export) {
                    self.workbench.notify(e, true);
                }
            }
            Command::LoadTasks(p) => self.workbench.open(Target::Tasks, p),
            Command::LoadGenerations(p) => self.workbench.open(Target::Generations, p),
            Command::OpenRun(p) => self.workbench.open(Target::Run, p),
            Command::OpenAny(p) => self.workbench.open(Target::Any, p),
            Command::LoadDemo => {
                self.workbench.load_demo();
                self.grid = GridView::default();
            }
            Command::Run => {
                let ctx = ctx.clone();
                // At most ~20 frames a second from results: software-rendered
                // desktops would otherwise spend a core redrawing.
                let waker = Arc::new(move || ctx.request_repaint_after(RESULT_REPAINT));
                self.workbench
                    .start(self.state.settings.run_settings(), waker);
                self.grid.selected = None;
            }
            Command::Cancel => self.workbench.cancel(),
            Command::Export(what, path) => match self.workbench.export(what, &path) {
                Ok(()) => self
                    .workbench
                    .notify(format!("saved {}", path.display()), false),
                Err(e) => self.workbench.notify(e.to_string(), true),
            },
            Command::Select(i) => self.grid.selected = Some(i),
            Command::FocusOutcome(o) => self.grid.focus(o),
            Command::DetectPython => self.workbench.detect_python(&self.state.settings.python),
            Command::ForgetRecent(p) => self.state.recent.retain(|(_, q)| *q != p),
            Command::OpenBaseline(p) => self.workbench.open(Target::Baseline, p),
            Command::CloseBaseline => self.workbench.set_baseline(None),
            Command::RunValidAnyway(on) => self.workbench.run_valid_anyway = on,
            Command::Calibrate => {
                self.workbench.calibrate(self.state.settings.run_settings());
                self.show_calibration = true;
            }
            Command::UseCalibration(on) => self.workbench.calibration.use_for_runs = on,
            Command::FocusFaults => self.grid.focus_only(Only::Faults),
            Command::FocusFlaky => self.grid.focus_only(Only::Flaky),
            Command::FocusCause(signature) => self.grid.focus_cause(signature),
            Command::BeginEdit(index) => self.workbench.begin_edit(index),
            Command::RunEdit => {
                // The settings of the run that made the results, else the
                // current ones.
                let settings = match &self.workbench.last_run {
                    Some(run) => run.settings.clone(),
                    None => self.state.settings.run_settings(),
                };
                self.workbench.run_edit(settings);
            }
            Command::KeepEdit => self.workbench.keep_edit(),
            Command::CancelEdit => self.workbench.cancel_edit(),
            Command::UndoEdit(index) => self.workbench.undo_edit(index),
            Command::DismissNotice => {
                self.workbench.notices.pop();
            }
            command @ (Command::RunToDialog
            | Command::RunTo(_)
            | Command::ResumeRun
            | Command::StartOver
            | Command::CloseResumeOffer) => self.apply_resume(ctx, command),
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        use shortcut::*;
        let pressed = |s: &KeyboardShortcut| ctx.input_mut(|i| i.consume_shortcut(s));
        // Shift+Ctrl+O before Ctrl+O, which it contains.
        if pressed(&OPEN_RUN) {
            self.push(Command::OpenDialog(FileTarget::Run));
        }
        if pressed(&OPEN_TASKS) {
            self.push(Command::OpenDialog(FileTarget::Tasks));
        }
        if pressed(&OPEN_GENERATIONS) {
            self.push(Command::OpenDialog(FileTarget::Generations));
        }
        if pressed(&RUN) || pressed(&RUN_F5) {
            self.push(Command::Run);
        }
        if self.workbench.is_running() && pressed(&CANCEL) {
            self.push(Command::Cancel);
        }
        if pressed(&EXPORT_CSV) {
            self.push(Command::SaveDialog(Export::CandidatesCsv));
        }
        if pressed(&SAVE_RUN) {
            self.push(Command::SaveDialog(Export::RunFile));
        }
    }

    fn apply_theme(&mut self, ctx: &egui::Context) {
        if self.applied_theme != Some(self.state.theme) {
            ctx.set_theme(match self.state.theme {
                ThemeChoice::Dark => egui::Theme::Dark,
                ThemeChoice::Light => egui::Theme::Light,
            });
            self.applied_theme = Some(self.state.theme);
        }
    }
}

impl eframe::App for App {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.apply_theme(ctx);
        // egui applies Ctrl +/−/0 itself; the factor is remembered.
        self.state.zoom = ctx.zoom_factor();
        let update = self.workbench.update(DRAIN_BUDGET);
        if update.more {
            ctx.request_repaint();
        }
        for (target, path) in update.opened {
            self.opened(target, path);
        }
        // `--run` waits for the launch files to be read.
        if self.run_on_start && !self.workbench.is_busy() {
            self.run_on_start = false;
            self.push(Command::Run);
        }
        for path in ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect::<Vec<_>>()
        }) {
            self.push(Command::OpenAny(path));
        }
        self.commands.extend(self.dialogs.poll());
        self.shortcuts(ctx);
        self.apply_commands(ctx);
        self.workbench.refresh();
        self.grid.refresh(
            &self.workbench.store,
            &self.workbench.progress,
            self.workbench.revision,
            self.workbench.is_running(),
        );
        if self.workbench.is_running() {
            // Keep the progress rate and ETA ticking.
            ctx.request_repaint_after(Duration::from_millis(250));
        }
        let idle = !self.workbench.is_running()
            && !self.workbench.is_busy()
            && !self.run_on_start
            && self.commands.is_empty();
        if let Some(shot) = &mut self.screenshot {
            shot.step(ctx, idle);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.toolbar_ui(ui);
        self.status_ui(ui);
        self.charts_ui(ui);
        self.detail_ui(ui);
        self.problems_ui(ui);
        self.caveats_ui(ui);
        self.grid_ui(ui);
        self.settings_ui(ui);
        self.calibration_ui(ui);
        self.compare_ui(ui);
        self.resume_ui(ui);
        self.drop_overlay_ui(ui);
        let ctx = ui.ctx().clone();
        self.apply_commands(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.state);
    }
}
