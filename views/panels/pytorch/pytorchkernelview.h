#pragma once

// PyTorchKernelView: the kernel view of a PyTorch trace, the PyTorch page of the Kernel Stats
// panel: every GPU kernel grouped by name in a filterable sortable table with CSV export, and a
// one-line summary (kernels, total time, share on Tensor Cores). Activating a row emits
// opActivated with the kernel name, so the timeline outlines that kernel's launches. A profile
// without kernels shows one line saying so instead of an empty table.
//
// Computes kernelView() through the AnalysisCache on a worker; GUI thread only otherwise.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/kernelview.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace tracedesk::views {

class PyTorchKernelModel;

class PyTorchKernelView : public QWidget
{
    Q_OBJECT

public:
    explicit PyTorchKernelView(QWidget *parent = nullptr);
    ~PyTorchKernelView() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // For tests.
    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    bool showsEmptyMessage() const;
    QTableView *tableView() const { return m_table; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    PyTorchKernelModel *model() const { return m_model; }

signals:
    void opActivated(const QString &name);
    void computed();

private:
    void showView(std::shared_ptr<const core::analysis::pytorch::KernelView> view);
    static QString statusLine(const core::analysis::pytorch::KernelView &v);
    core::analysis::AnalysisCachePtr m_cache;
    PanelCompute<std::shared_ptr<const core::analysis::pytorch::KernelView>> m_compute{
        this, &PyTorchKernelView::showView};

    QLineEdit *m_filter = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QTableView *m_table = nullptr;
    PyTorchKernelModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
};

} // namespace tracedesk::views
