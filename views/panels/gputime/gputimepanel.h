#pragma once

// GpuTimePanel: why the GPU waits, for a PyTorch profiler trace (core/analysis/gputime): the
// temporal breakdown per device, the idle gaps per stream by cause (with the 30 us kernel-wait
// threshold stated), kernel time by type and overlap, the launch outliers (runtime over 50 us or
// launch delay over 100 us; a click shows the launch on the timeline), each aten operator's
// kernel sequence with its delays, the launch queue per stream, and the critical path of a step
// with what-if speed-ups (CriticalPathView). A merged run of ranks gets the PyTorch views' rank
// chooser (FrameworkPages): the panel describes the chosen rank. Computed on a worker when the
// panel is first shown; GUI thread only.

#include "core/analysis/analysiscache.h"
#include "views/panels/common/panelcompute.h"

#include <QList>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;

namespace tracedesk::core::analysis::gputime {
struct GpuTimeReport;
}

namespace tracedesk::views {

class AnalysisTableModel;
class CriticalPathView;
class FrameworkPages;
class TimelineState;

class GpuTimePanel : public QWidget
{
    Q_OBJECT

public:
    explicit GpuTimePanel(QWidget *parent = nullptr);
    ~GpuTimePanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);
    bool isComputing() const;
    // Why the panel has nothing for `trace` (not a PyTorch trace, no GPU work), or empty.
    static QString notApplicableReason(const core::Trace &trace);

    QString statusText() const;
    AnalysisTableModel *temporalModel() const { return m_temporal; }
    AnalysisTableModel *idleModel() const { return m_idle; }
    AnalysisTableModel *typeModel() const { return m_types; }
    AnalysisTableModel *launchModel() const { return m_launches; }
    AnalysisTableModel *queueModel() const { return m_queue; }
    AnalysisTableModel *kernelNameModel() const { return m_names; }
    AnalysisTableModel *opKernelModel() const { return m_opKernels; }
    QTableView *launchView() const { return m_launchView; }
    QPushButton *outlineButton() const { return m_outline; }
    CriticalPathView *criticalPathView() const { return m_criticalPath; }
    QPushButton *computeLargeButton() const { return m_computeLarge; }
    // Above this estimate the panel asks before computing (the breakdowns of a generated
    // 100M-event XSpace take a minute and 7.7 GB).
    static constexpr uint64_t kAskAboveBytes = uint64_t(1) << 30;
    void setAskAboveBytes(uint64_t bytes) { m_askAboveBytes = bytes; }
    QTabWidget *tabs() const { return m_tabs; }
    FrameworkPages *pages() const { return m_pages; }

signals:
    void computed();
    void sliceActivated(tracedesk::core::SliceRef slice);
    void scrollRequested(tracedesk::core::SliceRef slice);
    // Outlines `refs` on the timeline, showing [start, end) (every launch outlier at once).
    void rangeActivated(tracedesk::core::TimePs start, tracedesk::core::TimePs end,
                        const QString &label,
                        std::shared_ptr<const std::vector<tracedesk::core::SliceRef>> refs);

private:
    using ReportPtr = std::shared_ptr<const core::analysis::gputime::GpuTimeReport>;
    // A report, or (report null) the count of launches and GPU activities of a profile so large
    // that the panel asks before computing over it.
    struct Computed
    {
        ReportPtr report;
        uint64_t events = 0;
    };
    void showAnalyses(core::analysis::AnalysisCachePtr cache);
    void startCompute(bool confirmed);
    void showReport(Computed result);

    core::analysis::AnalysisCachePtr m_cache;
    ReportPtr m_report;
    QLabel *m_status = nullptr;
    AnalysisTableModel *m_temporal = nullptr;
    AnalysisTableModel *m_idle = nullptr;
    AnalysisTableModel *m_types = nullptr;
    AnalysisTableModel *m_names = nullptr;
    AnalysisTableModel *m_launches = nullptr;
    AnalysisTableModel *m_queue = nullptr;
    AnalysisTableModel *m_opKernels = nullptr;
    QWidget *m_opKernelsCard = nullptr;
    QWidget *m_queueCard = nullptr;
    QLabel *m_queueNote = nullptr;
    QTableView *m_launchView = nullptr;
    QPushButton *m_outline = nullptr;
    CriticalPathView *m_criticalPath = nullptr;
    QTabWidget *m_tabs = nullptr;
    FrameworkPages *m_pages = nullptr;
    QLabel *m_otherProfile = nullptr; // the page for profiles without GPU work
    QList<QTableView *> m_views;
    QPushButton *m_computeLarge = nullptr; // shown when a large profile waits for the user
    uint64_t m_askAboveBytes = kAskAboveBytes;
    uint64_t m_deferredEvents = 0; // the count the question showed, what the click admits
    PanelCompute<Computed> m_compute{this, &GpuTimePanel::showReport};
};

} // namespace tracedesk::views
