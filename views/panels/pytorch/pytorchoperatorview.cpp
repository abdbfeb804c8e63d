#include "views/panels/pytorch/pytorchoperatorview.h"

#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/opstats/piechartview.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/headerwidths.h"
#include "views/panels/pytorch/pytorchoperatormodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::pytorch;

namespace {

// The pie's palette has nine colours: more slices would repeat one.
constexpr int kPieSlices = 9;

} // namespace

PyTorchOperatorView::PyTorchOperatorView(QWidget *parent) : QWidget(parent)
{
    m_group = new QComboBox(this);
    m_group->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by operator name"));
    m_filter->setClearButtonEnabled(true);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_status = new QLabel(tr("No profile"), this);
    m_status->setWordWrap(true);

    m_model = new PyTorchOperatorModel(this);
    m_proxy = makeTableProxy(m_model, PyTorchOperatorModel::kSortRole, 0, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(110);

    m_devicePie = new PieChartView(tr("Device self time, top %1 operators").arg(kPieSlices), this);
    m_hostPie = new PieChartView(tr("Host self time, top %1 operators").arg(kPieSlices), this);
    m_hostPie->hide();
    auto *pies = new QWidget(this);
    auto *pieLayout = new QHBoxLayout(pies);
    pieLayout->setContentsMargins(0, 0, 0, 0);
    pieLayout->addWidget(m_devicePie);
    pieLayout->addWidget(m_hostPie);
    pies->setMinimumHeight(220);

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Group by:"), this));
    bar->addWidget(m_group);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_export);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(pies);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_group, &QComboBox::currentIndexChanged, this, &PyTorchOperatorView::showGrouping);
    connect(m_export, &QPushButton::clicked, this,
            [this] { exportTableCsv(this, *m_proxy, QStringLiteral("pytorch_operators.csv")); });
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(PyTorchOperatorModel::kOpNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
}

PyTorchOperatorView::~PyTorchOperatorView() = default;

QString PyTorchOperatorView::statusText() const { return m_status->text(); }

PieChartView *PyTorchOperatorView::pie() const
{
    return m_stats && !m_stats->hasDeviceColumns ? m_hostPie : m_devicePie;
}

void PyTorchOperatorView::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_stats.reset();
    {
        const QSignalBlocker block(m_group);
        m_group->clear();
    }
    showGrouping();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    m_status->setText(tr("Computing the operator view..."));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c] { return operatorStats(*c); });
}

void PyTorchOperatorView::showStats(std::shared_ptr<const OperatorStats> stats)
{
    m_stats = std::move(stats);
    {
        const QSignalBlocker block(m_group);
        m_group->addItem(tr("Operator"), int(OperatorGrouping::Name));
        m_group->addItem(tr("Operator + input shapes"),
                         int(OperatorGrouping::NameInputShapes));
        // Call-stack groupings keep only operators with a stack: offered when recorded.
        if (!m_stats->byNameCallStack.empty()) {
            m_group->addItem(tr("Operator + call stack"),
                             int(OperatorGrouping::NameCallStack));
            m_group->addItem(tr("Operator + input shapes + call stack"),
                             int(OperatorGrouping::NameInputShapesCallStack));
        }
    }
    std::vector<std::pair<QString, double>> values;
    for (const OperatorRow &r : m_stats->byName)
        values.emplace_back(QString::fromStdString(r.opName),
                            m_stats->hasDeviceColumns ? r.deviceSelfUs : r.hostSelfUs);
    pie()->setValues(std::move(values), kPieSlices);
    m_devicePie->setVisible(m_stats->hasDeviceColumns);
    m_hostPie->setVisible(!m_stats->hasDeviceColumns);
    showGrouping();
    emit computed();
}

void PyTorchOperatorView::showGrouping()
{
    const auto grouping = OperatorGrouping(m_group->currentData().toInt());
    m_model->setStats(m_stats, grouping);
    m_export->setEnabled(m_model->rowCount() > 0);
    if (!m_stats) {
        m_devicePie->setValues({});
        m_hostPie->setValues({});
        return;
    }
    const int sortColumn = m_model->columnOf(m_stats->hasDeviceColumns
                                                 ? PyTorchOperatorModel::DeviceSelfUs
                                                 : PyTorchOperatorModel::HostSelfUs);
    m_table->sortByColumn(sortColumn, Qt::DescendingOrder);
    fitColumnsToHeaders(m_table, 90);
    m_table->setColumnWidth(0, 320);
    for (auto column : {PyTorchOperatorModel::InputShapes, PyTorchOperatorModel::CallStack}) {
        if (const int c = m_model->columnOf(column); c >= 0)
            m_table->setColumnWidth(c, 260);
    }
    const size_t rows = m_model->rows().size();
    if (rows == 0) {
        m_status->setText(tr("No operators in this PyTorch profile (no cpu_op events)."));
        return;
    }
    QString status = tr("%n row(s) over %1 operator name(s)%2", nullptr, int(rows))
                         .arg(m_stats->byName.size())
                         .arg(m_stats->hasDeviceColumns
                                  ? tr("; device times are the GPU work each operator launched")
                                  : tr("; no GPU work in this profile"));
    if (m_stats->hasDeviceColumns)
        status += attributionText(*m_stats);
    m_status->setText(status);
}

QString PyTorchOperatorView::attributionText(const OperatorStats &stats)
{
    double total = stats.deviceUsWithoutLaunch;
    for (double us : stats.deviceUsByRule)
        total += us;
    if (total <= 0)
        return {};
    const auto ms = [](double us) { return QString::number(us / 1e3, 'f', 3); };
    QStringList parts;
    for (int r = 0; r < kLaunchRuleCount; ++r) {
        if (stats.deviceUsByRule[size_t(r)] > 0)
            parts << tr("%1 ms by %2").arg(ms(stats.deviceUsByRule[size_t(r)]),
                                           QString::fromUtf8(launchRuleName(LaunchRule(r))));
    }
    if (stats.deviceUsWithoutLaunch > 0)
        parts << tr("%1 ms with no recorded launch (on CallTreeRoot)")
                     .arg(ms(stats.deviceUsWithoutLaunch));
    QString s = tr(". GPU time attached %1; italic rows are annotations or Python functions "
                   "that launched outside any operator.")
                    .arg(parts.join(QStringLiteral(", ")));
    if (stats.hasGraphCapture && !stats.captured.empty()) {
        QStringList top;
        for (size_t i = 0; i < stats.captured.size() && i < 5; ++i)
            top << tr("%1 %2 ms").arg(QString::fromStdString(stats.captured[i].opName),
                                      ms(stats.captured[i].deviceUs));
        s += tr(" Replayed graph kernels by the operator that captured them: %1%2.")
                 .arg(top.join(QStringLiteral(", ")),
                      stats.captured.size() > 5 ? tr(", ... (%1 operators; Kernel Stats has them "
                                                     "all in Captured by)")
                                                      .arg(stats.captured.size())
                                                : QString());
    }
    return s;
}

} // namespace tracedesk::views
