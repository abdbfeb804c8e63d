#pragma once

// OpProfilePanel: the device op profile as a tree (by program, by category or by framework op),
// sortable by time or time wasted, top-N children, IDLE on/off, FLOPS utilisation coloured from
// red to green, and a details card for the selected row. Computes through the AnalysisCache on a
// worker; "Selection only" rebuilds from the timeline area's time range.

#include "core/analysis/analysiscache.h"
#include "core/analysis/opprofile.h"
#include "views/panels/common/panelcompute.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSpinBox;
class QTextBrowser;
class QTreeView;

namespace tracedesk::views {

class FrameworkPages;
class NotApplicableView;
class OpProfileModel;
class TimelineState;

class OpProfilePanel : public QWidget
{
    Q_OBJECT

public:
    explicit OpProfilePanel(QWidget *parent = nullptr);
    ~OpProfilePanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);

    QTreeView *treeView() const { return m_tree; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    OpProfileModel *model() const { return m_model; }
    QString statusText() const;
    QString detailsText() const;
    bool isComputing() const { return m_compute.busy(); }
    void setGrouping(core::analysis::OpProfileGrouping grouping);

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    NotApplicableView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    // An op row's "Show in Graph Viewer" (its context menu); any program holding the op.
    void graphRequested(const QString &name, const QString &programId);
    void computed();

private:
    void showProfile(std::shared_ptr<const core::analysis::OpProfile> profile);
    void recompute();
    void showDetails(const QModelIndex &index);

    core::analysis::AnalysisCachePtr m_cache;
    QPointer<TimelineState> m_state;
    PanelCompute<std::shared_ptr<const core::analysis::OpProfile>> m_compute{
        this, &OpProfilePanel::showProfile};

    QComboBox *m_grouping = nullptr;
    QComboBox *m_sort = nullptr;
    QSpinBox *m_top = nullptr;
    QCheckBox *m_idle = nullptr;
    QCheckBox *m_selectionOnly = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_status = nullptr;
    QTreeView *m_tree = nullptr;
    QTextBrowser *m_details = nullptr;
    OpProfileModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    FrameworkPages *m_pages = nullptr;
    NotApplicableView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
