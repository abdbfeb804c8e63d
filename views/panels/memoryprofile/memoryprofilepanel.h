#pragma once

// MemoryProfilePanel: the allocator memory profile (FORMATS.md 2.12). Host and memory-id
// selectors, summary cards, a timeline chart (stack, heap and free stacked in GiB over ms,
// fragmentation % on a second axis) whose hover shows the allocation event and whose click
// emits timeActivated, and the breakdown of allocations live at the peak (sortable, filterable
// by op name, CSV export). Computes through the AnalysisCache on a worker.

#include "core/analysis/analysiscache.h"
#include "core/analysis/memoryprofile.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace tracedesk::views {

class FrameworkPages;
class PyTorchMemoryView;
class MemoryBreakdownModel;
class TimelineState;

class MemoryProfilePanel : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryProfilePanel(QWidget *parent = nullptr);
    ~MemoryProfilePanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *) {}

    // For tests and the window.
    QComboBox *hostCombo() const { return m_host; }
    QComboBox *memoryIdCombo() const { return m_memoryId; }
    QTableView *tableView() const { return m_table; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    MemoryBreakdownModel *model() const { return m_model; }
    QChart *chart() const { return m_chart; }
    QString statusText() const;
    QString hoverText() const;
    QString summaryText() const;
    bool isComputing() const { return m_compute.busy(); }
    const core::analysis::AllocatorProfile *currentProfile() const;
    // The snapshot nearest to `ms` (trace time in milliseconds) on the chart, as hover shows it.
    void hoverAt(double ms);
    void clickAt(double ms);

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    PyTorchMemoryView *pytorchView() const { return m_pytorch; }

signals:
    void timeActivated(core::TimePs t);
    void opActivated(const QString &name);
    void computed();

private:
    void showProfiles(std::shared_ptr<const core::analysis::MemoryProfileSet> set);
    void recompute();
    void fillHosts();
    void fillMemoryIds();
    void showProfile();
    int nearestTimelinePoint(double ms) const;
    // Times on the chart and in the cards count from the trace's start, the timeline's 0.
    double msFromStart(core::TimePs t) const;

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::MemoryProfileSet> m_set;
    PanelCompute<std::shared_ptr<const core::analysis::MemoryProfileSet>> m_compute{
        this, &MemoryProfilePanel::showProfiles};
    core::TimePs m_origin = 0;   // the trace's start

    QComboBox *m_host = nullptr;
    QComboBox *m_memoryId = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_cards = nullptr;
    QLabel *m_hover = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QChart *m_chart = nullptr;
    QChartView *m_chartView = nullptr;
    QLineEdit *m_filter = nullptr;
    QPushButton *m_export = nullptr;
    QTableView *m_table = nullptr;
    MemoryBreakdownModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    FrameworkPages *m_pages = nullptr;
    PyTorchMemoryView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
