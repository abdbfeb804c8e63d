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
// GUI thread only; results of a stale computation are dropped (PanelCompute).

#include "core/analysis/analysiscache.h"
#include "core/analysis/distributed/distributedsummary.h"
#include "views/panels/common/panelcompute.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QSlider;
class QStackedWidget;
class QStandardItemModel;
class QTabWidget;
class QTableView;

class QPushButton;

namespace tracedesk::views {

class NotApplicableView;
class RankBreakdownChart;

class DistributedPanel : public QWidget
{
    Q_OBJECT

public:
    using Summary = core::analysis::distributed::DistributedSummary;
    using SliceRefs = std::shared_ptr<const std::vector<core::SliceRef>>;

    explicit DistributedPanel(QWidget *parent = nullptr);
    ~DistributedPanel() override;

    // nullptr clears. A merged run of ranks computes on a worker ("Computing..." meanwhile).
    void setAnalyses(core::analysis::AnalysisCachePtr cache);

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

    QTabWidget *tabs() const { return m_tabs; }
    QPushButton *alignButton() const { return m_alignButton; }
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

private:
    void setSummary(std::shared_ptr<const Summary> summary);
    void showStep();
    void rankStepClicked(const QModelIndex &index);

    void onComputed(std::shared_ptr<const Summary> summary);

    PanelCompute<std::shared_ptr<const Summary>> m_compute{this, &DistributedPanel::onComputed};
    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const Summary> m_summary;
    std::vector<std::string> m_steps;
    QStackedWidget *m_pages = nullptr;
    NotApplicableView *m_reason = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_notes = nullptr;
    QTabWidget *m_tabs = nullptr;
    QLabel *m_stepLabel = nullptr;
    QPushButton *m_alignButton = nullptr;
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
