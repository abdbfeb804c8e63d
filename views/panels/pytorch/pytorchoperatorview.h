#pragma once

// PyTorchOperatorView: the operator view of a PyTorch trace, the PyTorch page of the Framework
// Op Stats panel. A group-by combo (operator; operator + input shapes; operator + call stack
// when the trace recorded stacks), a filterable sortable table with CSV export, and a pie of
// the top operators by device self time (host self time when the trace has no GPU work).
// Activating a row emits opActivated with the operator's name.
//
// Computes operatorStats() through the AnalysisCache on a worker; GUI thread only otherwise.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/operatorstats.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class PieChartView;
class PyTorchOperatorModel;

class PyTorchOperatorView : public QWidget
{
    Q_OBJECT

public:
    explicit PyTorchOperatorView(QWidget *parent = nullptr);
    ~PyTorchOperatorView() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // For tests.
    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    QComboBox *groupCombo() const { return m_group; }
    QTableView *tableView() const { return m_table; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    PyTorchOperatorModel *model() const { return m_model; }
    // The pie shown (device self time, or host self time without GPU work).
    PieChartView *pie() const;

signals:
    void opActivated(const QString &name);
    void computed();

private:
    static QString attributionText(const core::analysis::pytorch::OperatorStats &stats);
    void showStats(std::shared_ptr<const core::analysis::pytorch::OperatorStats> stats);
    void showGrouping();

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::pytorch::OperatorStats> m_stats;
    PanelCompute<std::shared_ptr<const core::analysis::pytorch::OperatorStats>> m_compute{
        this, &PyTorchOperatorView::showStats};

    QComboBox *m_group = nullptr;
    QLineEdit *m_filter = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
    PyTorchOperatorModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    PieChartView *m_devicePie = nullptr;
    PieChartView *m_hostPie = nullptr;
};

} // namespace tracedesk::views
