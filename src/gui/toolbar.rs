//! The toolbar: open, run, cancel, export, settings, theme; and what is loaded.

use egui::{Button, RichText};

use super::app::{App, shortcut};
use super::command::{Command, Export, FileTarget, export_label};
use super::state::{RecentKind, ThemeChoice};
use super::ui_ext::{UiExt, file_name};

impl App {
    pub(super) fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("toolbar").show(ui, |ui| {
            ui.add_space(4.0);
            ui.horizontal_wrapped(|ui| {
                self.open_buttons_ui(ui);
                ui.separator();
                self.run_buttons_ui(ui);
                ui.separator();
                self.export_menu_ui(ui);
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let (icon, next, hint) = match self.state.theme {
                        ThemeChoice::Dark => ("☀", ThemeChoice::Light, "Switch to the light theme"),
                        ThemeChoice::Light => ("🌙", ThemeChoice::Dark, "Switch to the dark theme"),
                    };
                    if ui.button(icon).on_hover_text(hint).clicked() {
                        self.state.theme = next;
                    }
                    ui.toggle_value(&mut self.show_settings, "⚙ Settings");
                });
            });
            ui.add_space(2.0);
            self.inputs_line_ui(ui);
            ui.add_space(4.0);
        });
    }

    fn open_buttons_ui(&mut self, ui: &mut egui::Ui) {
        let sc = |s| ui.ctx().format_shortcut(&s);
        let (tasks_hint, gens_hint, run_hint) = (
            sc(shortcut::OPEN_TASKS),
            sc(shortcut::OPEN_GENERATIONS),
            sc(shortcut::OPEN_RUN),
        );
        if ui
            .button("📂 Tasks…")
            .on_hover_text(format!("Open a task file ({tasks_hint})"))
            .clicked()
        {
            self.push(Command::OpenDialog(FileTarget::Tasks));
        }
        if ui
            .button("📂 Generations…")
            .on_hover_text(format!("Open a generations file ({gens_hint})"))
            .clicked()
        {
            self.push(Command::OpenDialog(FileTarget::Generations));
        }
        // Clicks inside do not close it, so the path field takes the mouse;
        // each entry closes it itself.
        let config = egui::containers::menu::MenuConfig::new()
            .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
        egui::containers::menu::MenuButton::new("More ⏷").config(config).ui(ui, |ui| {
            if ui.button(format!("Open run file…  {run_hint}")).clicked() {
                self.push(Command::OpenDialog(FileTarget::Run));
                ui.close();
            }
            if ui
                .button("Compare with a run file…")
                .on_hover_text("A saved run (A) against the results on screen (B): pass@k, curves, outcomes, regressed and improved tasks")
                .clicked()
            {
                self.push(Command::OpenDialog(FileTarget::Baseline));
                ui.close();
            }
            if ui
                .button("Calibrate timeouts…")
                .on_hover_text("Time each task's reference solution on this machine: which tasks could time out here, and a suggested timeout for each")
                .clicked()
            {
                self.push(Command::Calibrate);
                ui.close();
            }
            let why_not = self.workbench.cannot_run();
            if ui
                .add_enabled(why_not.is_none(), egui::Button::new("Run to a run file…"))
                .on_hover_text("Run and write the run file when it ends, journalled as it goes: an interrupted run to the same file can be resumed")
                .on_disabled_hover_text(why_not.unwrap_or_default())
                .clicked()
            {
                self.push(Command::RunToDialog);
                ui.close();
            }
            if ui.button("Load the demo set").clicked() {
                self.push(Command::LoadDemo);
                ui.close();
            }
            ui.separator();
            let label = ui.label("Open a path (any kind of file):");
            ui.horizontal(|ui| {
                let edit = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.path_input)
                            .hint_text("/path/to/file.jsonl"),
                    )
                    .labelled_by(label.id);
                let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (ui.button("Open").clicked() || enter) && !self.path_input.trim().is_empty() {
                    self.push(Command::OpenAny(self.path_input.trim().into()));
                    self.path_input.clear();
                    ui.close();
                }
            });
            if !self.state.recent.is_empty() {
                ui.separator();
                ui.label("Recent files:");
                for (kind, path) in self.state.recent.clone() {
                    let tag = match kind {
                        RecentKind::Tasks => "tasks",
                        RecentKind::Generations => "generations",
                        RecentKind::Run => "run",
                    };
                    let name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let exists = path.exists();
                    let button = ui
                        .add_enabled(exists, Button::new(format!("{name}  ({tag})")))
                        .on_hover_text(path.display().to_string())
                        .on_disabled_hover_text(format!("{} no longer exists", path.display()));
                    if button.clicked() {
                        self.push(match kind {
                            RecentKind::Tasks => Command::LoadTasks(path.clone()),
                            RecentKind::Generations => Command::LoadGenerations(path.clone()),
                            RecentKind::Run => Command::OpenRun(path.clone()),
                        });
                        ui.close();
                    }
                    if !exists {
                        button.context_menu(|ui| {
                            if ui.button("Forget").clicked() {
                                self.push(Command::ForgetRecent(path.clone()));
                            }
                        });
                    }
                }
            }
        });
    }

    fn run_buttons_ui(&mut self, ui: &mut egui::Ui) {
        let running = self.workbench.is_running();
        let why_not = self.workbench.cannot_run();
        let run_hint = ui.ctx().format_shortcut(&shortcut::RUN);
        let run = ui
            .add_enabled(
                why_not.is_none(),
                Button::new(RichText::new("▶ Run").strong()),
            )
            .on_hover_text(format!("Run every candidate ({run_hint} or F5)"))
            .on_disabled_hover_text(why_not.unwrap_or_default());
        if run.clicked() {
            self.push(Command::Run);
        }
        if ui
            .add_enabled(running, Button::new("⏹ Cancel"))
            .on_hover_text("Stop the run and kill running candidates (Esc)")
            .clicked()
        {
            self.push(Command::Cancel);
        }
    }

    fn export_menu_ui(&mut self, ui: &mut egui::Ui) {
        let has_results = self.workbench.done > 0;
        ui.add_enabled_ui(has_results, |ui| {
            ui.menu_button("💾 Export ⏷", |ui| {
                // The comparison's exports are in the Compare window.
                let compare = [Export::Changes, Export::CompareJson];
                for export in Export::ALL.into_iter().filter(|e| !compare.contains(e)) {
                    let hint = match export {
                        Export::CandidatesCsv => ui.ctx().format_shortcut(&shortcut::EXPORT_CSV),
                        Export::RunFile => ui.ctx().format_shortcut(&shortcut::SAVE_RUN),
                        _ => String::new(),
                    };
                    if ui
                        .button(format!("{}  {hint}", export_label(export)))
                        .clicked()
                    {
                        self.push(Command::SaveDialog(export));
                    }
                }
            })
            .response
            .on_disabled_hover_text("run first, or open a run file");
        });
    }

    fn inputs_line_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            if let Some((path, file)) = &self.workbench.opened_run
                && let Some(source) = &file.source
            {
                ui.label(RichText::new(format!("{} result file", source.harness)).strong());
                ui.label(file_name(path)).on_hover_text(path.display().to_string());
                ui.weak_label(format!(
                    "({}; its verdicts, nothing re-run; not recorded: {})",
                    source.layout,
                    source.unknown.join(", ")
                ));
                return;
            }
            if let Some((path, file)) = &self.workbench.opened_run {
                ui.label(RichText::new("Saved run").strong());
                ui.label(file_name(path)).on_hover_text(path.display().to_string());
                ui.weak_label(format!(
                    "(python {}, tasks {}, generations {})",
                    file.python.version, file.inputs.tasks.path, file.inputs.generations.path
                ));
                return;
            }
            if self.workbench.is_demo() {
                ui.label(RichText::new("Demo set").strong());
                ui.weak_label("built in: six small tasks, five answers each, every outcome represented. Open your own files to evaluate them.");
                return;
            }
            match &self.workbench.tasks {
                Some(t) => {
                    ui.label(RichText::new("Tasks").strong());
                    ui.label(file_name(&t.path)).on_hover_text(t.path.display().to_string());
                    ui.weak_label(format!(
                        "{} · {} executable{}{}",
                        t.format.label(),
                        t.tasks.len(),
                        if t.skipped.is_empty() { String::new() } else { format!(", {} skipped", t.skipped.len()) },
                        if t.errors.is_empty() { String::new() } else { format!(", {} invalid", t.errors.len()) },
                    ));
                }
                None => {
                    ui.weak_label("No task file: open one, or drop it on the window.");
                }
            }
            ui.separator();
            match &self.workbench.generations {
                Some(g) => {
                    ui.label(RichText::new("Generations").strong());
                    ui.label(file_name(&g.path)).on_hover_text(g.path.display().to_string());
                    ui.weak_label(format!("{} · {} generations", g.format.label(), g.items.len()));
                }
                None => {
                    ui.weak_label("No generations file yet.");
                }
            }
            if let Some(plan) = &self.workbench.plan {
                ui.separator();
                ui.weak_label(format!("{} candidates", plan.jobs.len()));
            }
        });
    }
}
