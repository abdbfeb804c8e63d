#pragma once

// DistributedPanel: the distributed view of a run of several ranks opened as one trace. Three
// tabs over one DistributedSummary computed on a worker from the loaded merged store:
// - Ranks and steps: a stacked column per rank (computation, exposed communication, overlap,
//   idle) for the step the slider picks or all steps, and the per rank and step table;
// - Stragglers: every matched collective with the spread of its start and end across ranks,
//   the last-arriving rank and the waiting it caused; the ranks by the waiting they caused;
// - Collectives: per kernel name, count, total and mean time and data size, over the run and
//   per rank.
// Clicking a rank emits hostActivated (its section on the timeline); a step or a collective
// emits rangeActivated with its span and every rank's instance of it, to outline.
// A trace that is not a run of several ranks shows a one-line reason instead.
//
// Part of a run on the timeline: with a run summarizer (setRunSummarizer, wired by the app to
// core's summarizeRunView) the tables cover every rank of the run, summarised rank by rank on
// the worker when the timeline holds only some ranks, with progress in the status line; clicks
// reach the ranks the timeline holds (a rank it lacks says so). "Ranks on timeline..." picks
// the ranks to show (RankPickerDialog) and emits ranksRequested; the app reopens the run.
// GUI thread only; results of a stale computation are dropped (PanelCompute).

#include "core/analysis/analysiscache.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "core/analysis/distributed/runview.h"
#include "views/panels/common/panelcompute.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QLabel;
class QSlider;
class QStackedWidget;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTimer;

class QPushButton;

namespace tracedesk::views {

class NotApplicableView;
class RankBreakdownChart;
class RankPickerDialog;

class DistributedPanel : public QWidget
{
    Q_OBJECT

public:
    using Summary = core::analysis::distributed::DistributedSummary;
    using RunView = core::analysis::distributed::RunView;
    using SliceRefs = std::shared_ptr<const std::vector<core::SliceRef>>;
    // Computes the run's view of a shown trace on the panel's worker; it reports (ranks done,
    // ranks to do) from any thread and stops when the worker's cancel token is set.
    using RunSummarizer = std::function<RunView(const core::Trace &trace,
                                                std::function<void(size_t, size_t)> progress)>;

    explicit DistributedPanel(QWidget *parent = nullptr);
    ~DistributedPanel() override;

    // nullptr clears. A merged run of ranks computes on a worker ("Computing..." meanwhile).
    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    // A run with no trace on the timeline, summarised elsewhere (from its summary files): the
    // tables at once, clicks say the rank is not on the timeline, the rank picker offers every
    // rank. The next setAnalyses() replaces it.
    void showRun(std::shared_ptr<const Summary> run);
    // How the next setAnalyses() finds the trace's whole run; empty: the trace alone.
    void setRunSummarizer(RunSummarizer summarizer) { m_summarizer = std::move(summarizer); }
    bool isComputing() const { return m_compute.busy(); }
    // The run's view (null until computed): every rank, and the ranks on the timeline.
    const std::shared_ptr<const RunView> &runView() const { return m_view; }

    const std::shared_ptr<const Summary> &summary() const { return m_summary; }
    bool showsReason() const;
    QString reasonText() const;
    QString statusText() const;
    int rankCount() const { return m_summary ? int(m_summary->ranks.size()) : 0; }
    // The step names the slider offers after "all steps".
    const std::vector<std::string> &stepNames() const { return m_steps; }
    // 0 = all steps, i = stepNames()[i - 1].
    void setStepChoice(int choice);

    // What a click does, also for tests: rank index / step / collective index into summary().
    void activateRank(int rankIndex);
    void activateStep(int rankIndex, int stepIndex);
    void activateCollective(int collectiveIndex);

    // Opens the rank picker (non-modal, deleted when closed); accepting it emits ranksRequested.
    RankPickerDialog *openRankPicker();

    QTabWidget *tabs() const { return m_tabs; }
    QPushButton *alignButton() const { return m_alignButton; }
    QPushButton *ranksButton() const { return m_ranksButton; }
    QTableView *rankStepTable() const { return m_rankSteps; }
    QTableView *stragglerTable() const { return m_stragglers; }
    QTableView *waitingTable() const { return m_waiting; }
    QTableView *statsTable() const { return m_stats; }
    RankBreakdownChart *chart() const { return m_chart; }

signals:
    void hostActivated(const QString &host);
    void rangeActivated(core::TimePs start, core::TimePs end, const QString &label,
                        SliceRefs refs);
    void computed();
    // Reload the run with every rank moved so that this step starts at one time.
    void alignRequested(const QString &step);
    // Reload the run with these ranks on the timeline (ascending).
    void ranksRequested(const QList<qint64> &ranks);

private:
    void setSummary(std::shared_ptr<const Summary> summary);
    void showStep();
    void rankStepClicked(const QModelIndex &index);

    void onComputed(std::shared_ptr<const RunView> view);
    void showProgress();
    void markRanksOffTimeline();
    QString timelineNote() const;

    PanelCompute<std::shared_ptr<const RunView>> m_compute{this, &DistributedPanel::onComputed};
    core::analysis::AnalysisCachePtr m_cache;
    RunSummarizer m_summarizer;
    std::shared_ptr<const RunView> m_view;
    std::shared_ptr<const Summary> m_summary; // m_view->run
    // Ranks summarised so far / to do, written by the worker, read by m_progressTimer.
    std::shared_ptr<std::atomic<uint64_t>> m_progress;
    QTimer *m_progressTimer = nullptr;
    std::vector<std::string> m_steps;
    QString m_baseStatus; // the summary's status line, before a click's note
    QStackedWidget *m_pages = nullptr;
    NotApplicableView *m_reason = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_notes = nullptr;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_stepLabel = nullptr;
    QPushButton *m_alignButton = nullptr;
    QPushButton *m_ranksButton = nullptr;
    QSlider *m_slider = nullptr;
    RankBreakdownChart *m_chart = nullptr;
    QTableView *m_rankSteps = nullptr;
    QTableView *m_stragglers = nullptr;
    QTableView *m_waiting = nullptr;
    QTableView *m_stats = nullptr;
    QStandardItemModel *m_rankStepModel = nullptr;
    QStandardItemModel *m_stragglerModel = nullptr;
    QStandardItemModel *m_waitingModel = nullptr;
    QStandardItemModel *m_statsModel = nullptr;
};

} // namespace tracedesk::views
