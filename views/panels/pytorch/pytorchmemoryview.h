#pragma once

// PyTorchMemoryView: the memory view of a PyTorch trace, the PyTorch page of the Memory Profile
// panel. A device combo (CPU, GPU0, ...; the first GPU by default), the allocated and reserved
// curves of that device as step lines over trace time with both peaks labelled, and the memory
// events table (filterable by operator, CSV export). Clicking the chart or activating an event
// emits timeActivated. A profile without memory records says so in one line, with no chart.
//
// Computes pytorchMemory() through the AnalysisCache on a worker, which also thins each curve
// to what a chart can draw (keeping every bucket's minimum and maximum, so peaks survive);
// GUI thread only otherwise.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/pytorchmemory.h"
#include "views/panels/common/panelcompute.h"

#include <QList>
#include <QPointF>
#include <QWidget>

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

class PyTorchMemoryEventModel;

class PyTorchMemoryView : public QWidget
{
    Q_OBJECT

public:
    explicit PyTorchMemoryView(QWidget *parent = nullptr);
    ~PyTorchMemoryView() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // For tests.
    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    QString peakText() const;
    bool showsEmptyMessage() const;
    QComboBox *deviceCombo() const { return m_device; }
    QChart *chart() const { return m_chart; }
    QTableView *tableView() const { return m_table; }
    PyTorchMemoryEventModel *model() const { return m_model; }

    // Step-line points (ms from `origin`, MB) of a curve thinned to about `buckets` time buckets.
    static QList<QPointF> stepPoints(const std::vector<core::analysis::pytorch::MemoryPoint> &curve,
                                     bool reserved, int buckets, core::TimePs origin = 0);

signals:
    void timeActivated(core::TimePs t);
    void computed();

private:
    // Chart and table times count from the trace's start, the timeline's 0.
    double msFromStart(core::TimePs t) const { return double(t - m_origin) / 1e9; }
    struct Curves
    {
        QList<QPointF> allocated;
        QList<QPointF> reserved;
    };
    struct Result
    {
        std::shared_ptr<const core::analysis::pytorch::PyTorchMemory> memory;
        std::vector<Curves> curves;   // per device
    };
    void showResult(Result result);
    void showDevice();

    core::analysis::AnalysisCachePtr m_cache;
    Result m_result;
    PanelCompute<Result> m_compute{this, &PyTorchMemoryView::showResult};

    QComboBox *m_device = nullptr;
    QLabel *m_deviceLabel = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_peaks = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QChart *m_chart = nullptr;
    QChartView *m_chartView = nullptr;
    QLineEdit *m_filter = nullptr;
    QPushButton *m_export = nullptr;
    QTableView *m_table = nullptr;
    PyTorchMemoryEventModel *m_model = nullptr;
    core::TimePs m_origin = 0;   // the trace's start: chart and table times count from it
    QSortFilterProxyModel *m_proxy = nullptr;
};

} // namespace tracedesk::views
