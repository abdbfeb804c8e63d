#include "views/panels/pytorch/pytorchkernelview.h"

#include "views/panels/common/panellinks.h"
#include "views/panels/common/rowtable.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/headerwidths.h"
#include "views/panels/pytorch/pytorchkernelmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::pytorch;

PyTorchKernelView::PyTorchKernelView(QWidget *parent) : QWidget(parent)
{
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by kernel or operator name"));
    m_filter->setClearButtonEnabled(true);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_status = new QLabel(tr("No profile"), this);
    m_status->setWordWrap(true);

    m_model = new PyTorchKernelModel(this);
    m_proxy = makeTableProxy(m_model, PyTorchKernelModel::kSortRole, -1, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setDefaultSectionSize(95);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_empty = new QLabel(tr("This PyTorch profile has no GPU kernels."), this);
    m_empty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_table);
    m_stack->addWidget(m_empty);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_export);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_stack, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_export, &QPushButton::clicked, this,
            [this] { exportTableCsv(this, *m_proxy, QStringLiteral("pytorch_kernels.csv")); });
    onRowActivated(m_table, this, [this](const QModelIndex &index) {
        const QString name = index.data(PyTorchKernelModel::kKernelNameRole).toString();
        if (!name.isEmpty())
            emit opActivated(name);
    });
}

PyTorchKernelView::~PyTorchKernelView() = default;

QString PyTorchKernelView::statusText() const { return m_status->text(); }

bool PyTorchKernelView::showsEmptyMessage() const
{
    return m_stack->currentWidget() == m_empty;
}

void PyTorchKernelView::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_model->setView(nullptr);
    m_stack->setCurrentWidget(m_table);
    m_export->setEnabled(false);
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    m_status->setText(tr("Computing the kernel view..."));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c] { return kernelView(*c); });
}

QString PyTorchKernelView::statusLine(const KernelView &v)
{
    const auto share = [&](double us) {
        return QString::number(v.totalKernelUs > 0 ? 100.0 * us / v.totalKernelUs : 0.0, 'f', 1);
    };
    QString s = tr("%1 kernel launches of %2 kernels, %3 ms in total; %4 % of kernel time on "
                   "Tensor / Matrix Cores (the kernels marked Yes).")
                    .arg(v.kernelCount)
                    .arg(v.byName.size())
                    .arg(v.totalKernelUs / 1e3, 0, 'f', 3)
                    .arg(share(v.tensorCoreKernelUs));
    QStringList rules;
    for (int r = 0; r < kLaunchRuleCount; ++r) {
        if (v.kernelUsByRule[size_t(r)] > 0)
            rules << tr("%1 % by %2").arg(share(v.kernelUsByRule[size_t(r)]),
                                          QString::fromUtf8(launchRuleName(LaunchRule(r))));
    }
    if (v.kernelUsWithoutLaunch > 0)
        rules << tr("%1 % with no recorded launch").arg(share(v.kernelUsWithoutLaunch));
    if (!rules.isEmpty())
        s += tr(" Operator found: %1.").arg(rules.join(QStringLiteral(", ")));
    if (v.hasGraphCapture)
        s += tr(" %1 % of kernel time replayed from a CUDA / HIP graph and attributed to the "
                "operators that captured it (Captured by).")
                 .arg(share(v.capturedKernelUs));
    return s;
}

void PyTorchKernelView::showView(std::shared_ptr<const KernelView> view)
{
    const KernelView &v = *view;
    m_model->setView(view);
    const bool empty = v.byName.empty();
    m_stack->setCurrentWidget(empty ? static_cast<QWidget *>(m_empty) : m_table);
    m_export->setEnabled(!empty);
    if (empty) {
        m_status->clear();
    } else {
        m_table->sortByColumn(m_model->columnOf(PyTorchKernelModel::TotalUs),
                              Qt::DescendingOrder);
        fitColumnsToHeaders(m_table, 90);
        m_table->setColumnWidth(0, 420);
        if (const int c = m_model->columnOf(PyTorchKernelModel::Family); c >= 0)
            m_table->setColumnWidth(c, 130); // "Reduction / norm"
        // Operator names (Python frames, annotations) are as long as kernel names.
        for (auto column : {PyTorchKernelModel::Operator, PyTorchKernelModel::CapturedBy}) {
            if (const int c = m_model->columnOf(column); c >= 0)
                m_table->setColumnWidth(c, 260);
        }
        m_status->setText(statusLine(v));
    }
    emit computed();
}

} // namespace tracedesk::views
