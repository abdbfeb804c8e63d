#pragma once

// KernelStatsPanel: GPU kernel stats as a sortable, filterable table with CSV export; an
// explanatory message replaces the table when the profile has no GPU kernels. Computes through
// the AnalysisCache on a worker; "Selection only" recomputes for the timeline area's range.

#include "core/analysis/analysiscache.h"
#include "core/analysis/opmetrics.h"
#include "views/panels/common/panelcompute.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace tracedesk::views {

class FrameworkPages;
class PyTorchKernelView;
class KernelStatsModel;
class TimelineState;

class KernelStatsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit KernelStatsPanel(QWidget *parent = nullptr);
    ~KernelStatsPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);
    // Why the panel has nothing to show for `trace` (no GPU), or empty when it applies.
    static QString notApplicableReason(const core::Trace &trace);

    QTableView *tableView() const { return m_table; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    KernelStatsModel *model() const { return m_model; }
    QString statusText() const;
    bool isComputing() const { return m_compute.busy(); }
    bool showsEmptyMessage() const;

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    PyTorchKernelView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    void computed();

private:
    void showKernels(core::analysis::KernelStatsDb db);
    void recompute();

    core::analysis::AnalysisCachePtr m_cache;
    QPointer<TimelineState> m_state;
    PanelCompute<core::analysis::KernelStatsDb> m_compute{this, &KernelStatsPanel::showKernels};

    QLineEdit *m_filter = nullptr;
    QCheckBox *m_selectionOnly = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QTableView *m_table = nullptr;
    KernelStatsModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    FrameworkPages *m_pages = nullptr;
    PyTorchKernelView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
