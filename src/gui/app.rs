//! The eframe app: persisted state, the session, view state and the command queue.
//! `logic` drains engine events and input; `ui` only places panels.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::command::{Command, Export, FileTarget};
use super::compare::{Baseline, CompareView};
use super::dialogs::Dialogs;
use super::screenshot::Screenshot;
use super::session::Session;
use super::state::{AppState, RecentKind, STORAGE_KEY, ThemeChoice};
use super::view::GridView;
use super::{Launch, theme};
use crate::input::{self, FileKind};

/// Time spent applying engine events per frame before yielding to drawing.
const DRAIN_BUDGET: Duration = Duration::from_millis(8);

/// Longest wait before results that arrived are drawn.
const RESULT_REPAINT: Duration = Duration::from_millis(50);

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
    /// Inputs, plan, results, engine.
    pub session: Session,
    /// Results grid view.
    pub grid: GridView,
    /// Detail panel tab.
    pub detail_tab: DetailTab,
    /// pass@k calculator inputs.
    pub calculator: Calculator,
    /// Settings window open?
    pub show_settings: bool,
    /// The Compare window's filter.
    pub compare_view: CompareView,
    /// Path typed or pasted into the Open menu.
    pub path_input: String,
    pub(super) commands: Vec<Command>,
    pub(super) dialogs: Dialogs,
    pub(super) screenshot: Option<Screenshot>,
    run_on_start: bool,
    applied_theme: Option<ThemeChoice>,
}

impl App {
    /// Builds the app: restores persisted state, loads the launch files (or the
    /// demo set) and queues a run if asked.
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
        let session = Session::new(&state.settings.python);
        let mut app = App {
            state,
            session,
            grid: GridView::default(),
            detail_tab: DetailTab::default(),
            calculator: Calculator::default(),
            show_settings: false,
            compare_view: CompareView::default(),
            path_input: String::new(),
            commands: Vec::new(),
            dialogs: Dialogs::new(),
            screenshot: launch.screenshot.map(Screenshot::new),
            run_on_start: launch.run,
            applied_theme: None,
        };
        match (launch.tasks, launch.generations) {
            (None, None) => app.session.load_demo(),
            (tasks, gens) => {
                for (kind, path) in [(RecentKind::Tasks, tasks), (RecentKind::Generations, gens)] {
                    if let Some(path) = path {
                        app.load(kind, path);
                    }
                }
            }
        }
        app
    }

    /// Queues a command (panels and tests use this).
    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }

    fn load(&mut self, kind: RecentKind, path: PathBuf) {
        let ok = match kind {
            RecentKind::Tasks => self.session.load_tasks(&path),
            RecentKind::Generations => self.session.load_generations(&path),
            RecentKind::Run => self.session.open_run(&path),
        };
        if ok {
            self.state.remember(kind, path);
            self.grid = GridView::default();
        }
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
                    self.session.notify(e, true);
                }
            }
            Command::SaveDialog(export) => {
                if let Err(e) = self.dialogs.save(ctx, export) {
                    self.session.notify(e, true);
                }
            }
            Command::LoadTasks(p) => self.load(RecentKind::Tasks, p),
            Command::LoadGenerations(p) => self.load(RecentKind::Generations, p),
            Command::OpenRun(p) => self.load(RecentKind::Run, p),
            Command::OpenAny(p) => match input::sniff(&p) {
                Ok(FileKind::Tasks) => self.load(RecentKind::Tasks, p),
                Ok(FileKind::Generations) => self.load(RecentKind::Generations, p),
                Ok(FileKind::RunFile) => self.load(RecentKind::Run, p),
                Err(e) => self.session.notify(e.to_string(), true),
            },
            Command::LoadDemo => {
                self.session.load_demo();
                self.grid = GridView::default();
            }
            Command::Run => {
                let ctx = ctx.clone();
                // At most ~20 frames a second from results: software-rendered
                // desktops would otherwise spend a core redrawing.
                let waker = Arc::new(move || ctx.request_repaint_after(RESULT_REPAINT));
                self.session
                    .start(self.state.settings.run_settings(), waker);
                self.grid.selected = None;
            }
            Command::Cancel => self.session.cancel(),
            Command::Export(what, path) => match self.session.export(what, &path) {
                Ok(()) => self
                    .session
                    .notify(format!("saved {}", path.display()), false),
                Err(e) => self.session.notify(e, true),
            },
            Command::Select(i) => self.grid.selected = Some(i),
            Command::FocusOutcome(o) => self.grid.focus(o),
            Command::DetectPython => self.session.detect_python(&self.state.settings.python),
            Command::ForgetRecent(p) => self.state.recent.retain(|(_, q)| *q != p),
            Command::OpenBaseline(p) => match Baseline::open(&p) {
                Ok(baseline) => {
                    self.session.baseline = Some(baseline);
                    self.state.remember(RecentKind::Run, p);
                }
                Err(e) => self.session.notify(e, true),
            },
            Command::CloseBaseline => self.session.baseline = None,
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
        if self.session.is_running() && pressed(&CANCEL) {
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
        if self.run_on_start {
            self.run_on_start = false;
            self.push(Command::Run);
        }
        if self.session.drain(DRAIN_BUDGET) {
            ctx.request_repaint();
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
        self.grid.refresh(
            &self.session.store,
            &self.session.progress,
            self.session.revision,
            self.session.is_running(),
        );
        if self.session.is_running() {
            // Keep the progress rate and ETA ticking.
            ctx.request_repaint_after(Duration::from_millis(250));
        }
        let idle = !self.session.is_running() && self.commands.is_empty();
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
        self.grid_ui(ui);
        self.settings_ui(ui);
        self.compare_ui(ui);
        self.drop_overlay_ui(ui);
        let ctx = ui.ctx().clone();
        self.apply_commands(&ctx);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.state);
    }
}
