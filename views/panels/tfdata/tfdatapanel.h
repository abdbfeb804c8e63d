#pragma once

// TfDataPanel: tf.data bottleneck analysis. A table of every host's input pipelines (execution
// statistics, ranked by the slowest execution), the selected pipeline's slowest execution as an
// iterator tree (critical path bold, bottleneck red) and the recommendation for its bottleneck.
// Computes through the AnalysisCache on a worker and shows "Computing..." meanwhile.

#include "core/analysis/analysiscache.h"
#include "core/analysis/tfdata.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace tracedesk::views {

class FrameworkPages;
class NotApplicableView;
class TfDataGraphModel;

class TfDataPanel : public QWidget
{
    Q_OBJECT

public:
    enum PipelineColumn { Host, Pipeline, Type, Calls, SlowCalls, MinUs, AvgUs, MaxUs,
                          Bottleneck, PipelineColumnCount };
    static constexpr int kPipelineIndexRole = Qt::UserRole + 1;

    explicit TfDataPanel(QWidget *parent = nullptr);
    ~TfDataPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    // Why the panel has nothing to show for `trace` (no tf.data iterators), or empty.
    static QString notApplicableReason(const core::Trace &trace);
    // Shows the slowest execution of pipelines()[index] in the graph and its recommendation.
    void showPipeline(int index);

    QTableView *pipelineView() const { return m_table; }
    QTreeView *graphView() const { return m_tree; }
    TfDataGraphModel *graphModel() const { return m_graph; }
    QStandardItemModel *pipelineModel() const { return m_pipelines; }
    QString statusText() const;
    QString recommendationText() const;
    bool isComputing() const { return m_compute.busy(); }

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    NotApplicableView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    void computed();

private:
    void showAnalysis(std::shared_ptr<const core::analysis::TfDataAnalysis> result);
    void recompute();
    void fill();

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::TfDataAnalysis> m_result;
    PanelCompute<std::shared_ptr<const core::analysis::TfDataAnalysis>> m_compute{
        this, &TfDataPanel::showAnalysis};

    QLabel *m_status = nullptr;
    QLabel *m_summary = nullptr;
    QTableView *m_table = nullptr;
    QStandardItemModel *m_pipelines = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QLabel *m_graphTitle = nullptr;
    QTreeView *m_tree = nullptr;
    TfDataGraphModel *m_graph = nullptr;
    QTextBrowser *m_recommendation = nullptr;
    FrameworkPages *m_pages = nullptr;
    NotApplicableView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
