#include "views/panels/opprofile/opprofilepanel.h"

#include "views/panels/common/panellinks.h"
#include "views/panels/opprofile/opprofilemodel.h"
#include "views/panels/pytorch/frameworkpages.h"
#include "views/timeline/timelinestate.h"

#include "core/model/timeformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBrowser>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;

OpProfilePanel::OpProfilePanel(QWidget *parent) : QWidget(parent)
{
    m_grouping = new QComboBox(this);
    m_grouping->addItem(tr("By program"), int(OpProfileGrouping::ByProgram));
    m_grouping->addItem(tr("By category"), int(OpProfileGrouping::ByCategory));
    m_grouping->addItem(tr("By framework op"), int(OpProfileGrouping::ByProvenance));
    m_sort = new QComboBox(this);
    m_sort->addItem(tr("Sort by time"), int(OpProfileSort::Time));
    m_sort->addItem(tr("Sort by time wasted"), int(OpProfileSort::WastedTime));
    m_top = new QSpinBox(this);
    m_top->setRange(1, 100000);
    m_top->setValue(100);
    m_top->setPrefix(tr("Top "));
    m_top->setToolTip(tr("Children shown per node"));
    m_idle = new QCheckBox(tr("Include IDLE"), this);
    m_idle->setChecked(true);
    m_selectionOnly = new QCheckBox(tr("Selection only"), this);
    m_selectionOnly->setEnabled(false);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter ops"));
    m_filter->setClearButtonEnabled(true);
    m_status = new QLabel(tr("No profile"), this);

    m_model = new OpProfileModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OpProfileModel::kSortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_tree = new QTreeView(this);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(OpProfileModel::Time, Qt::DescendingOrder);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->resizeSection(OpProfileModel::Name, 300);
    m_details = new QTextBrowser(this);
    m_details->setMinimumWidth(240);
    m_details->setPlaceholderText(tr("Select an op to see its details."));

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_grouping);
    bar->addWidget(m_sort);
    bar->addWidget(m_top);
    bar->addWidget(m_idle);
    bar->addWidget(m_selectionOnly);
    bar->addWidget(m_filter, 1);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new NotApplicableView(
        tr("Op Profile shows XLA/HLO ops; this PyTorch profile has none — see Framework Op "
           "Stats for its operators and Kernel Stats for its GPU kernels."),
        this);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_grouping, &QComboBox::currentIndexChanged, this, &OpProfilePanel::recompute);
    connect(m_sort, &QComboBox::currentIndexChanged, this, [this] {
        m_tree->sortByColumn(m_sort->currentData().toInt() == int(OpProfileSort::WastedTime)
                                 ? OpProfileModel::Wasted
                                 : OpProfileModel::Time,
                             Qt::DescendingOrder);
        recompute();
    });
    connect(m_top, &QSpinBox::editingFinished, this, &OpProfilePanel::recompute);
    connect(m_idle, &QCheckBox::toggled, this, &OpProfilePanel::recompute);
    connect(m_selectionOnly, &QCheckBox::toggled, this, &OpProfilePanel::recompute);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { showDetails(current); });
    onRowActivated(m_tree, this, [this](const QModelIndex &index) {
        showDetails(index);
        const QString name = index.data(OpProfileModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this](QPoint at) {
        const QString name =
            m_tree->indexAt(at).data(OpProfileModel::kOpNameRole).toString();
        if (name.isEmpty())
            return;
        QMenu menu(this);
        menu.addAction(tr("Show on the timeline"), this, [&] { emit opActivated(name); });
        menu.addAction(tr("Show in Graph Viewer"), this,
                       [&] { emit graphRequested(name, QString()); });
        menu.exec(m_tree->viewport()->mapToGlobal(at));
    });
}

OpProfilePanel::~OpProfilePanel() = default;

void OpProfilePanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

void OpProfilePanel::setTimelineState(TimelineState *state)
{
    followSelection(&m_state, state, m_selectionOnly, this, [this] { recompute(); });
}

void OpProfilePanel::setGrouping(OpProfileGrouping grouping)
{
    m_grouping->setCurrentIndex(m_grouping->findData(int(grouping)));
}

QString OpProfilePanel::statusText() const
{
    return m_status->text();
}

QString OpProfilePanel::detailsText() const
{
    return m_details->toPlainText();
}

void OpProfilePanel::recompute()
{
    m_compute.cancel();
    m_details->clear();
    if (!m_cache) {
        m_model->setProfile(nullptr);
        m_status->setText(tr("No profile"));
        return;
    }
    OpProfileOptions options;
    options.grouping = OpProfileGrouping(m_grouping->currentData().toInt());
    options.sort = OpProfileSort(m_sort->currentData().toInt());
    options.includeIdle = m_idle->isChecked();
    options.maxChildren = m_top->value();
    std::optional<core::analysis::TimeRange> range;
    if (m_selectionOnly->isChecked() && m_state && m_state->area().valid())
        range = core::analysis::TimeRange{m_state->area().time.t0, m_state->area().time.t1};
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr cache = m_cache;
    m_compute.start([cache, options, range]() -> std::shared_ptr<const OpProfile> {
        if (!range)
            return std::make_shared<const OpProfile>(buildOpProfile(*cache, options));
        const OpStats stats = computeOpStats(cache->trace(), range);
        return std::make_shared<const OpProfile>(buildOpProfile(
            stats.device, stats.perfEnv, options, stats.runEnvironment.deviceType));
    });
}

void OpProfilePanel::showProfile(std::shared_ptr<const OpProfile> profile)
{
    const auto &root = profile->root;
    m_status->setText(
        root.children.empty()
            ? tr("No device ops in this profile.")
            : tr("%1 - total %2 - peak %3 TFLOP/s, %4 GB/s HBM")
                  .arg(profile->deviceType.empty()
                           ? tr("Device")
                           : QString::fromStdString(profile->deviceType))
                  .arg(QString::fromStdString(core::formatDuration(root.metrics.timePs)))
                  .arg(profile->peakGigaFlopsPerSecond / 1000.0, 0, 'f', 1)
                  .arg(profile->peakHbmGigaBytesPerSecond, 0, 'f', 1));
    m_model->setProfile(std::move(profile));
    if (m_model->rowCount() <= 8)
        m_tree->expandToDepth(0);
    emit computed();
}

void OpProfilePanel::showDetails(const QModelIndex &index)
{
    const OpProfileNode *n = m_model->node(m_proxy->mapToSource(index));
    if (!n) {
        m_details->clear();
        return;
    }
    const auto &m = n->metrics;
    auto row = [](const QString &key, const QString &value) {
        return value.isEmpty() ? QString()
                               : QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                                     .arg(key, value.toHtmlEscaped());
    };
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=4>")
                       .arg(QString::fromStdString(n->name).toHtmlEscaped());
    html += row(tr("Category"), QString::fromStdString(n->category));
    html += row(tr("Framework op"), QString::fromStdString(n->provenance));
    html += row(tr("Time"), QStringLiteral("%1 (%2%)")
                                .arg(QString::fromStdString(core::formatDuration(m.timePs)))
                                .arg(m.timeFraction * 100.0, 0, 'f', 2));
    html += row(tr("Self time"), QString::fromStdString(core::formatDuration(m.selfTimePs)));
    html += row(tr("Occurrences"), QString::number(m.occurrences));
    if (m.occurrences > 0)
        html += row(tr("Average"),
                    QString::fromStdString(core::formatDuration(m.timePs / m.occurrences)));
    // Unknown counts read as unknown, never as a 0% that looks like a finding.
    const QString noFlops = tr("not available (no FLOP count in the profile)");
    const QString noBytes = tr("not available (no byte count in the profile)");
    html += row(tr("FLOP rate"), m.flops > 0 ? QStringLiteral("%1 GFLOP/s")
                                                   .arg(m.gflopsPerSecond, 0, 'f', 2)
                                             : noFlops);
    html += row(tr("FLOPS utilisation"),
                m.flops > 0 ? QStringLiteral("%1%").arg(m.flopsUtilization * 100.0, 0, 'f', 2)
                            : noFlops);
    html += row(tr("Memory bandwidth"),
                m.bytesAccessed > 0 ? QStringLiteral("%1 GB/s").arg(m.gigabytesPerSecond, 0, 'f', 2)
                                    : noBytes);
    html += row(tr("HBM utilisation"),
                m.bytesAccessed > 0 ? QStringLiteral("%1%").arg(m.hbmUtilization * 100.0, 0, 'f', 2)
                                    : noBytes);
    html += row(tr("Shape / layout"), QString::fromStdString(n->layout));
    html += row(tr("Deduplicated name"), QString::fromStdString(n->deduplicatedName));
    if (n->programId != 0)
        html += row(tr("Program id"), QString::number(n->programId));
    html += QStringLiteral("</table>");
    if (!n->expression.empty() && n->expression != n->name)
        html += QStringLiteral("<p><b>%1</b><br><code>%2</code></p>")
                    .arg(tr("Expression"),
                         QString::fromStdString(n->expression).toHtmlEscaped());
    m_details->setHtml(html);
}

} // namespace tracedesk::views
